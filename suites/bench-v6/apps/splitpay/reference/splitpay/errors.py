"""The one error the command line reports as `error: ...` with exit status 1."""


class SplitError(Exception):
    pass
