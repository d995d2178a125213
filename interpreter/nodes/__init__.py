"""The executable tree: the nodes the analyzer builds and the evaluator runs, and their compiled fast paths.

The package's one documented circle: ``release`` names the binding nodes of ``binding``
(``Let``, ``LetValues``, ``Do``) among the nodes that make no closure, and ``binding``'s
``NamedLet.compile`` asks ``release.procedures_stay_inside`` whether its loop's frame can be
emptied, so ``binding`` imports ``release`` inside that method (at module level the two would
each need the other loaded first).
"""
