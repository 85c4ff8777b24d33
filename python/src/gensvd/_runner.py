"""Running a call of the library from Python: the GIL is released while it works (in the
extension); called from the main thread the call runs in a helper thread while the main thread
waits, so that Ctrl-C raises KeyboardInterrupt at once: the library is then cancelled (it stops
within about a second and removes what it staged) and the KeyboardInterrupt propagates once it
has. The library's messages go to the "gensvd" logger after the call.
"""

import logging
import threading

from . import _gensvd as _g

log = logging.getLogger("gensvd")

_LEVELS = {_g.LOG_ERROR: logging.ERROR, _g.LOG_WARN: logging.WARNING,
           _g.LOG_INFO: logging.INFO, _g.LOG_DEBUG: logging.DEBUG}


def log_level():
    """The library's level for the logger's: what would be shown is kept."""
    level = log.getEffectiveLevel()
    if level <= logging.DEBUG:
        return _g.LOG_DEBUG
    if level <= logging.INFO:
        return _g.LOG_INFO
    if level <= logging.WARNING:
        return _g.LOG_WARN
    return _g.LOG_ERROR


def emit_log(ctx, words=None):
    """The run's messages to the logger (in the call's words: gensvd._messages); errors at
    DEBUG only: the exception raised carries them (logging's last-resort handler would print
    them a second time)."""
    messages, dropped = ctx.take_log()
    for level, message in messages:
        log.log(logging.DEBUG if level == _g.LOG_ERROR else _LEVELS.get(level, logging.INFO),
                "%s", words(message) if words else message)
    if dropped:
        log.warning("%d more messages", dropped)


def call(ctx, fn, *args, words=None):
    """fn(*args) (an extension call that releases the GIL and stops when ctx is cancelled),
    interruptible by Ctrl-C from the main thread; words (gensvd._messages.Words) rewrites the
    log's messages."""
    if threading.current_thread() is not threading.main_thread():
        try:
            return fn(*args)
        finally:
            emit_log(ctx, words)
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # handed to the calling thread
            box["error"] = e

    worker = threading.Thread(target=target, name="gensvd", daemon=True)
    interrupted = None
    worker.start()
    while worker.is_alive():
        try:
            worker.join(0.25)
        except KeyboardInterrupt as e:
            interrupted = interrupted or e
            ctx.cancel()  # again on a second Ctrl-C: the run is stopping
    emit_log(ctx, words)
    error = box.get("error")
    if interrupted is not None:
        if error is None or isinstance(error, _g.CancelledError):
            raise interrupted.with_traceback(None) from None
        raise interrupted from error
    if error is not None:
        raise error.with_traceback(error.__traceback__)
    return box["value"]
