"""The exceptions clgemm raises for failures the library reports.

Every failure inside the library arrives as :class:`Error` (a ``RuntimeError``) with the
library's code name and the argument at fault; a rejected kernel build as :class:`BuildError`
and a failed OpenCL call as :class:`OpenCLError`. Mistakes in the Python-level arguments (a
float64 array, a strided view, shapes that do not agree) are ``TypeError`` and ``ValueError``.
"""


class Error(RuntimeError):
    """A failure the library reported.

    Attributes:
        message: the library's text, e.g. ``unknown kernel 'nope' (valid: base, row, ...)``.
        code: its stable code name, e.g. ``"unknown-kernel"``, ``"invalid-argument"``,
            ``"buffer-too-small"`` (the C++ ``error_code_name``).
        argument: the argument at fault as the API spells it (``"lda"``, ``"kernel"``,
            ``"precision"``, ``"queue"``, ...), or None.
    """

    def __init__(self, message, code, argument=None):
        super().__init__(message, code, argument)
        self.message = message
        self.code = code
        self.argument = argument

    def __str__(self):
        where = f", argument {self.argument}" if self.argument else ""
        return f"{self.message} [{self.code}{where}]"


class BuildError(Error):
    """The OpenCL compiler rejected a kernel: ``kernel``, ``device``, ``options``, ``log``."""

    def __init__(self, message, code, argument=None, kernel="", device="", options="", log=""):
        super().__init__(message, code, argument)
        self.kernel = kernel
        self.device = device
        self.options = options
        self.log = log


class OpenCLError(Error):
    """An OpenCL call failed at run time; ``status`` is its OpenCL status (e.g. -5)."""

    def __init__(self, message, code, argument=None, status=0):
        super().__init__(message, code, argument)
        self.status = status
