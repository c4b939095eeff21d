"""Long calls seen from an interactive session: the first call of a kernel variant that takes
more than a moment (a cold build: half a minute for `blocked` on PoCL) says on stderr what it
is building, once per variant and process ($CLGEMM_BUILD_NOTICE: the seconds to wait first,
or "off"); a Ctrl-C during a call raises KeyboardInterrupt when the call returns, with C
holding the call's result. Each test runs a fresh interpreter, where nothing is built yet."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

NOTICE = "clgemm: building kernel"


def run_python(code, tmp_path, **env):
    """Runs `code` in a fresh interpreter outside the source tree; (stdout, stderr)."""
    environment = dict(os.environ, **env)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


PRODUCTS = """
import numpy as np, clgemm
a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
ctx = clgemm.Context()
ctx.sgemm(a, b, kernel="tile")
ctx.sgemm(a, b, kernel="tile")                    # the same variant: built, no notice
clgemm.Context().sgemm(a, b, kernel="tile")       # another Context: once per process
ctx.sgemm(a, b, kernel="tile", act="relu")        # another variant: a notice of its own
clgemm.matmul(a, b, kernel="tile")
"""


@pytest.fixture
def warm(ctx):
    """The programs PRODUCTS runs, built once here, so that the disk cache holds them."""
    a, b = np.ones((5, 3), np.float32), np.ones((3, 4), np.float32)
    ctx.sgemm(a, b, kernel="tile")
    ctx.sgemm(a, b, kernel="tile", act="relu")


def test_each_build_is_announced_once(tmp_path, warm):
    """With no wait ($CLGEMM_BUILD_NOTICE=0) every first call of a variant says what it
    builds, and no later call of the same variant does."""
    _, err = run_python(PRODUCTS, tmp_path, CLGEMM_BUILD_NOTICE="0")
    lines = [line for line in err.splitlines() if line.startswith(NOTICE)]
    assert len(lines) == 2, err
    assert lines[0].startswith(f"{NOTICE} 'tile' (fp32) for '")
    assert lines[1].startswith(f"{NOTICE} 'tile' (fp32, relu) for '")
    assert all("on its first call" in line and "CLGEMM_BUILD_NOTICE=off" in line
               for line in lines)


def test_quick_calls_say_nothing(tmp_path, warm):
    """By default the notice waits a second: programs loaded from the disk cache say nothing,
    and CLGEMM_BUILD_NOTICE=off silences it."""
    _, err = run_python(PRODUCTS, tmp_path)
    assert NOTICE not in err
    _, err = run_python(PRODUCTS, tmp_path, CLGEMM_BUILD_NOTICE="off")
    assert NOTICE not in err


INTERRUPTED = """
import json, os, signal, threading, time
import numpy as np, clgemm
ctx = clgemm.Context()
ctx.sgemm(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32), kernel="row")  # built
a, c = np.ones((1024, 1024), np.float32), np.zeros((1024, 1024), np.float32)
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
where, seconds = "nowhere", None
started = time.perf_counter()
try:
    ctx.sgemm(a, a, c, kernel="row")              # a second or more on PoCL
    seconds = time.perf_counter() - started
    time.sleep(10)                                # a call quicker than the timer: Ctrl-C here
except KeyboardInterrupt:
    where = "after the call" if seconds is not None else "from the call"
    seconds = seconds or time.perf_counter() - started
print(json.dumps(dict(seconds=seconds, where=where, full=bool(np.all(c == 1024.0)))))
"""


def test_ctrl_c_is_raised_when_the_call_returns(tmp_path):
    """SIGINT 0.3 s into a call: the call runs to its end (C holds the whole product), then
    KeyboardInterrupt is raised by the call itself."""
    out, _ = run_python(INTERRUPTED, tmp_path)
    result = json.loads(out.splitlines()[-1])
    if result["where"] == "after the call" and result["seconds"] < 0.3:
        pytest.skip(f"the call takes {result['seconds']:.3f} s here: too quick to interrupt")
    assert result["where"] == "from the call", result
    assert result["full"], result
    assert result["seconds"] >= 0.3, result
