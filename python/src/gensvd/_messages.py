"""The library's messages in the words of a Python call.

The library names an option as the command line spells it (``--chr``, ``--memory 0 MiB``,
``pca option 'components'``), which is right for the program and for C callers and wrong for
someone who wrote ``chr=`` or ``n_components=``. Each message of a call (its exception and its
log records) is rewritten here with the call's own keywords: ``--chr 'chr99'`` becomes
``chr='chr99'``, ``--autosome`` ``autosome=True``, ``-k 20`` ``n_components=20``, ``pca
option 'components'`` ``argument n_components``. Only the options the function takes are
rewritten; text in backquotes (a command to run) and every other word is left as it is.
"""

import re

# Options whose value is a word (``--method exact``): the word after them is the value.
_WORD_VALUED = frozenset((
    "method", "metric", "missing", "scaler", "accuracy", "device", "stop", "gram-kernel",
    "pass-kernel", "outlier-mode", "shrinkage-correction", "dtype", "layout", "axis",
    "s3-addressing"))

_FLAG = re.compile(r"(?<![\w`-])--([a-z0-9][a-z0-9-]*)"
                   r"(?: (-?[0-9][0-9.eE+-]*\b|'[^']*'|[a-z][a-z0-9-]*))?")
# The command line's short options the library's messages use (``-k 20 needs more than 10
# samples``), by the long option they stand for.
_SHORT_OPTIONS = {"k": "components"}
_SHORT = re.compile(r"(?<![\w`-])-([a-zA-Z]) (-?[0-9][0-9.eE+-]*\b)")
_NAMED = re.compile(r"(?:\b[a-z]+ )?option ['\"]([a-z0-9][a-z0-9-]*)['\"]")
_TICKS = re.compile(r"(`[^`]*`)")


class Words:
    """The keywords of one function: {option name (the command line's): (python name, flag)}."""

    def __init__(self, names):
        self.names = dict(names)

    def _flag(self, m):
        option, value = m.group(1), m.group(2)
        if option not in self.names:
            return m.group(0)
        py, flag = self.names[option]
        if flag:
            return f"{py}=True" + (f" {value}" if value else "")
        if value is None:
            return f"{py}="
        if value[0] in "'-0123456789":
            return f"{py}={value}"
        if option in _WORD_VALUED:
            return f"{py}='{value}'"
        return f"{py}= {value}"

    def _short(self, m):
        option = _SHORT_OPTIONS.get(m.group(1))
        if option not in self.names:
            return m.group(0)
        return f"{self.names[option][0]}={m.group(2)}"

    def _named(self, m):
        option = m.group(1)
        if option not in self.names:
            return m.group(0)
        return f"argument {self.names[option][0]}"

    def __call__(self, message):
        parts = _TICKS.split(message)
        for i in range(0, len(parts), 2):  # the even parts lie outside backquotes
            text = _SHORT.sub(self._short, _FLAG.sub(self._flag, parts[i]))
            parts[i] = _NAMED.sub(self._named, text)
        return "".join(parts)


def rewrite_error(error, words):
    """Put error's message in the call's words, in place (its class, code, cause and traceback
    stay)."""
    if error.args and isinstance(error.args[0], str):
        error.args = (words(error.args[0]), *error.args[1:])
