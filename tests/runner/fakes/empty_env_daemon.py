"""The reference over stdio, after leaving behind a detached helper that dropped the run's marker.

Usage: empty_env_daemon.py PID_FILE
At start-up a child calls setsid and forks a grandchild, then exits; the grandchild (re-parented
to the nearest subreaper) execs ``python -c <sleep>`` with an EMPTY environment, so no marker
variable finds it, and writes its pid to PID_FILE. Then this process becomes the reference
server. The helper ends by itself after LIFETIME seconds, whatever the runner does.
"""

import os
import sys

LIFETIME = 120
PID_FILE = sys.argv[1]
SLEEPER = f"import signal, time; signal.alarm({LIFETIME}); time.sleep({LIFETIME})"

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(PID_FILE, "w", encoding="ascii") as handle:
            handle.write(str(os.getpid()))
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.execve(sys.executable, [sys.executable, "-c", SLEEPER], {})
    os._exit(0)
os.wait()
os.execv(sys.executable, [sys.executable, "-m", "ccweb_reference.cli"])
