"""The command line: click only. Parses, calls the library in ``core``, prints through ``output``.

Command modules import nothing heavy at module level: click loads every one of them to print the root help.
"""
