"""progress=True: a tqdm bar per stage of a run ("pass 3", "Gram", "writing", ...), or without
tqdm a plain one-line bar on standard error; progress=CALLABLE gets (what, done, total)."""

import sys
import time


class _Plain:
    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.what = None
        self.start = time.monotonic()

    def __call__(self, what, done, total):
        if what != self.what:
            if self.what is not None:
                self.stream.write("\n")
            self.what, self.start = what, time.monotonic()
        if total:
            width = 30
            fill = int(width * min(done, total) / total)
            line = f"\r{what}: [{'#' * fill}{'.' * (width - fill)}] {100 * done / total:5.1f}%"
        else:
            line = f"\r{what}: {done}"
        self.stream.write(f"{line} {time.monotonic() - self.start:6.1f} s")
        self.stream.flush()

    def close(self):
        if self.what is not None:
            self.stream.write("\n")
            self.stream.flush()


class _Tqdm:
    def __init__(self, tqdm):
        self.tqdm = tqdm
        self.bar = None
        self.what = None

    def __call__(self, what, done, total):
        if what != self.what or self.bar is None:
            self.close()
            self.what = what
            self.bar = self.tqdm(total=total or None, desc=what, leave=False)
        self.bar.n = done
        self.bar.refresh()

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def reporter(progress):
    """A callable (what, done, total) with a close(), or None for progress=False."""
    if not progress:
        return None
    if callable(progress):
        return progress
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Plain()
    return _Tqdm(tqdm)
