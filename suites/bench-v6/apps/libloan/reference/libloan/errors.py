"""The one error every module raises; the command line prints it as `error: ...` and exits 1."""


class LibError(Exception):
    pass
