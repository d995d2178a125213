"""The REPL, one module per job.

- ``session``: evaluate input and print results and errors, however lines are read;
- ``prompt``: the prompt_toolkit front end (editing, highlighting, completion, history);
- ``plain``: the line-by-line front end for pipes, CI and dumb terminals;
- ``commands``: the comma commands (``,help``, ``,load`` …);
- ``describe``: what the REPL says about values, names and forms;
- ``completion``: tab completion;
- ``syntax``: open brackets and indentation for the editor.

Nothing is imported here, so that running a program never pays for prompt_toolkit.
"""
