"""The tests a draft of slugify.py must pass (run by run_tests.py)."""

import unittest

from slugify import slugify


class SlugifyTest(unittest.TestCase):
    def test_lowercases_and_joins_words(self) -> None:
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_drops_punctuation(self) -> None:
        self.assertEqual(slugify("Ready, set: go!"), "ready-set-go")

    def test_collapses_spaces(self) -> None:
        self.assertEqual(slugify("  many   spaces  "), "many-spaces")


if __name__ == "__main__":
    unittest.main()
