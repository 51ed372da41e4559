"""The bundled reference's fork server: one import per run, every server still its own process, nothing left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from ccweb_conformance.suite.world import TOOL_NAME
from ccweb_conformance.transport import zygote_client as zygote
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import StdioTarget, reference_command

WAIT_BOUND_S = 60.0
"""Seconds a forked child may take to end: a guard against a hang, not a speed check (a busy machine is slow)."""

pytestmark = pytest.mark.skipif(not zygote.supported(), reason="the fork server runs on Linux only")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.NoSuchProcess:
        return True


def _wait_gone(pids: list[int], bound: float = 10.0) -> bool:
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if all(_gone(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def _write(sessions: Path, conversation: str, content: str) -> None:
    data = {"id": conversation, "messages": [{"role": "user", "content": content, "timestamp": None}]}
    (sessions / f"{conversation}.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def own_zygote():
    started = zygote.Zygote()
    try:
        yield started
    finally:
        started.stop()


def test_each_binding_is_a_forked_process_with_its_own_source(tmp_path):
    """Two sources, two forks of the one fork server; each reads the source it was started with."""
    _write(tmp_path, "first", "from first")
    _write(tmp_path, "second", "from second")
    target = StdioTarget(reference_command(), tmp_path)
    assert target.fork_reference
    try:
        answers, pids = {}, {}
        for source in ("first", "second"):
            client = target.client(source)
            result = client.call_tool(TOOL_NAME, {}).response["result"]["structuredContent"]
            answers[source] = [item["content"] for item in result["items"]]
            pids[source] = client.channel.io.process.popen.pid
        shared = target.context.fork_server.get()
        assert shared is not None
        parents = {source: psutil.Process(pid).ppid() for source, pid in pids.items()}
    finally:
        target.close()
    assert answers == {"first": ["from first"], "second": ["from second"]}
    assert pids["first"] != pids["second"]
    assert parents == {"first": shared.pid, "second": shared.pid}
    assert _wait_gone(list(pids.values()))
    assert _wait_gone([shared.pid])  # the target's own context: its fork server stopped with it


def test_a_child_is_waited_for_like_popen(own_zygote, tmp_path):
    """Exit code, ``TimeoutExpired`` while it runs, and the pid kept (a zombie) until it was waited for."""
    child = own_zygote.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path)], dict(os.environ))
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(0.05)
    assert child.poll() is None
    child.stdin.close()  # end of input: the server ends by itself
    assert child.wait(WAIT_BOUND_S) == 0
    assert child.returncode == 0
    assert _wait_gone([child.pid])


def test_a_usage_error_comes_back_as_the_exit_code_and_stderr(own_zygote, tmp_path):
    child = own_zygote.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path / "missing")], dict(os.environ))
    assert child.wait(WAIT_BOUND_S) == 2
    assert child.stderr.read().decode().strip() == (
        f"ccweb-reference: error: sessions directory {str(tmp_path / 'missing')!r} does not exist or is not a directory"
    )


def test_an_exit_reported_before_the_handle_is_registered_is_not_lost(own_zygote, tmp_path, monkeypatch):
    """Issue 45: the zygote's ``exited`` can follow its ``spawned`` before the spawning thread runs again (a
    usage error ends the child at once; beside busy processes the thread waits for a core). Here the handle is
    built only once the listener has read the exit report, every time."""
    reported = threading.Event()

    def loads(data):
        message = json.loads(data)
        if "exited" in message:
            reported.set()
        return message

    monkeypatch.setattr(zygote, "json", SimpleNamespace(loads=loads, dumps=json.dumps))
    build = zygote.ForkedProcess.__init__

    def built_late(self, *args, **kwargs):
        assert reported.wait(WAIT_BOUND_S)
        build(self, *args, **kwargs)

    monkeypatch.setattr(zygote.ForkedProcess, "__init__", built_late)
    child = own_zygote.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path / "missing")], dict(os.environ))
    assert child.wait(5.0) == 2


def test_a_killed_child_reports_the_signal(own_zygote, tmp_path):
    child = own_zygote.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path)], dict(os.environ))
    os.killpg(child.pid, signal.SIGKILL)
    assert child.wait(WAIT_BOUND_S) == -signal.SIGKILL


def test_stopping_the_fork_server_ends_its_children(tmp_path):
    started = zygote.Zygote()
    children = [started.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path)], dict(os.environ)) for _ in "ab"]
    started.stop()
    assert _wait_gone([started.pid, *(child.pid for child in children)], 5.0)
    assert [child.wait(5) for child in children] == [-signal.SIGKILL, -signal.SIGKILL]


def test_a_fork_server_killed_leaves_its_children_to_be_stopped(tmp_path):
    """SIGKILL to the fork server: a child's handle still stops and waits, without hanging."""
    started = zygote.Zygote()
    child = started.spawn(["ccweb-reference", "--sessions-dir", str(tmp_path)], dict(os.environ))
    os.kill(started.pid, signal.SIGKILL)
    started.process.wait(5)
    os.killpg(child.pid, signal.SIGTERM)
    # 143: the signal came before the child had put back the default action of the fork server's SIGTERM handler
    # (which exits 128 + the signal), as a loaded machine can make it
    assert child.wait(WAIT_BOUND_S) in (-signal.SIGTERM, -signal.SIGKILL, 128 + signal.SIGTERM)
    assert _wait_gone([child.pid])
    started.stop()


def test_the_runner_killed_takes_the_fork_server_and_its_children_with_it(tmp_path):
    """The channel closes when the runner dies, however it dies: the fork server ends its children and exits."""
    script = textwrap.dedent(
        f"""
        import os, sys, time
        from ccweb_conformance.transport import zygote_client as zygote
        started = zygote.Zygote()
        child = started.spawn(["ccweb-reference", "--sessions-dir", {str(tmp_path)!r}], dict(os.environ))
        print(started.pid, child.pid, flush=True)
        time.sleep(60)
        """
    )
    runner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert runner.stdout is not None
        pids = [int(word) for word in runner.stdout.readline().split()]
        assert len(pids) == 2 and all(not _gone(pid) for pid in pids)
    finally:
        runner.kill()
        runner.wait(10)
    assert _wait_gone(pids, 10.0)


def test_disabled_by_the_environment_every_server_is_started_the_ordinary_way(monkeypatch, tmp_path):
    monkeypatch.setenv(zygote.DISABLE_ENV, "1")
    assert RunContext().fork_server.get() is None
    target = StdioTarget(reference_command(), tmp_path)
    try:
        process = target.client(None).channel.io.process
        command = psutil.Process(process.pid).cmdline()
        assert isinstance(process.popen, subprocess.Popen)
    finally:
        target.close()
    assert command[1:3] == ["-m", "ccweb_reference.cli"]


def test_another_command_is_never_forked(tmp_path):
    command = f"{sys.executable} -m ccweb_reference.cli --sessions-dir {{sessions_dir}} --max-file-bytes 9"
    target = StdioTarget(command, tmp_path)
    assert target.fork_reference  # the same module with this interpreter: forked, its arguments passed on
    other = StdioTarget(f"env {sys.executable} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}", tmp_path)
    assert not other.fork_reference


def _zygote_children() -> list[int]:
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "ccweb_reference.zygote" in " ".join(child.cmdline()) and not _gone(child.pid):
                found.append(child.pid)
        except psutil.Error:  # gone, or a zombie, meanwhile
            continue
    return found


FROZEN_AT_START = """
import os, signal
if os.environ.get("ZYGOTE_TEST_FREEZE"):
    os.kill(os.getpid(), signal.SIGSTOP)
"""
"""A ``sitecustomize`` that stops the interpreter before it imports anything of its own: an import never done."""


def test_stopped_while_it_still_imports_it_ends_at_once(tmp_path, monkeypatch):
    """A command that ends (a signal, a usage error) while the fork server still imports: nothing waits for it.

    The fork server this test starts is stopped (SIGSTOP) before its first import and given an hour to be ready:
    a stop that waited for its import would wait for ever, so the join below is only a net against that hang.
    Judged on the fork server this test starts: one an earlier test of the same worker left is not its concern."""
    earlier = set(_zygote_children())
    fork_server = RunContext().fork_server
    (tmp_path / "sitecustomize.py").write_text(FROZEN_AT_START, encoding="utf-8")
    with monkeypatch.context() as frozen:
        frozen.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
        frozen.setenv("ZYGOTE_TEST_FREEZE", "1")
        frozen.setattr(zygote, "READY_DEADLINE", 3600.0)
        fork_server.start_in_background()
        deadline = time.monotonic() + WAIT_BOUND_S
        while fork_server._starting is None and time.monotonic() < deadline:
            time.sleep(0.005)
        starting = fork_server._starting
        assert starting is not None and fork_server._running is None
        while psutil.Process(starting.pid).status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
            time.sleep(0.005)
        assert psutil.Process(starting.pid).status() == psutil.STATUS_STOPPED  # it cannot become ready now
        stopper = threading.Thread(target=fork_server.stop, daemon=True)
        stopper.start()
        stopper.join(WAIT_BOUND_S)
        assert not stopper.is_alive(), "stop() waited for an import that never ends"
    assert starting.process.poll() == -signal.SIGKILL  # never ready: killed, not left stopped
    assert _wait_gone([pid for pid in _zygote_children() if pid not in earlier], 5.0)
    assert [pid for pid in _zygote_children() if pid not in earlier] == []
    assert fork_server.get() is not None  # and it may start one again
    fork_server.stop()


def test_a_fork_that_fails_is_answered_with_its_errno_and_the_fork_server_keeps_serving(monkeypatch):
    """Out of processes (RLIMIT_NPROC), ``os.fork`` raised out of the fork server's loop: it ended and killed
    every running server of the run (each then "killed by signal 9", blamed on the implementation)."""
    import errno  # noqa: PLC0415
    import socket  # noqa: PLC0415

    from ccweb_reference import zygote as fork_server  # noqa: PLC0415

    def no_process_left() -> int:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(fork_server.os, "fork", no_process_left)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with ours, theirs:
        children = fork_server._Children(theirs)
        children.running.add(4_000_000)  # a running server: it must stay registered, not be ended
        request = {"op": "spawn", "argv": ["ccweb-reference"], "env": {}}
        spawn_and_serve = getattr(fork_server, "_spawn", None)
        assert spawn_and_serve is not None, "the fork server has no fork that answers its failure"
        spawn_and_serve(request, [], theirs, children, (-1, -1))
        reply = json.loads(ours.recv(4096))
    assert reply == {"error": "cannot fork: [Errno 11] Resource temporarily unavailable", "errno": errno.EAGAIN}
    assert children.running == {4_000_000}
