"""The executable tree: the nodes the analyzer builds and the evaluator runs, and their compiled fast paths."""
