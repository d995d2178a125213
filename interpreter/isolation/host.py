"""The host's side of ``Interpreter(isolate=True)``: a persistent child process that
evaluates, under OS limits, what the host's interpreter is asked to evaluate.

The host keeps everything that is its own: Python functions, tasks and models it
registered, model keys, its ``stdin`` stream and its output streams. The child calls
back over the pipe for them (:meth:`Isolation._serve`). When the child hits a limit the
kernel enforces, or overstays its ``timeout`` by :data:`WALL_GRACE`, the host kills it,
raises a ``resource-exhaustion`` error and starts a fresh child on the next request (the
error says the definitions were lost).
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..datatypes import Primitive, RecordType, Symbol
from ..embedding import call_host, dsl_name
from ..errors import SchemeError, SchemeExit
from ..evaluator import python_exception
from ..tasks.models.backends import TransientModelError, accepts, is_transient
from ..tasks.models.workers import WorkerThreads
from ..tasks.names import TASK_NAMES
from .child import MEMORY_EXIT
from .wire import BadMessage, Channel, ChannelClosed, Codec, FrameTooLarge

if TYPE_CHECKING:
    from ..facade import Facade

#: Seconds past ``timeout`` after which the host kills a child that has not answered.
WALL_GRACE = 2.0
#: Seconds a child may take to start (import, standard library) before it is given up.
START_TIMEOUT = 120.0
#: Environment variables the child does not inherit: model calls run in the host.
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
#: Threads that run the host's side of the child's calls (host functions, models, stdin).
HOST_WORKERS = WorkerThreads("taskscheme-isolation-host")


class IsolatedProcedure:
    """A procedure that lives in the isolated child, seen from the host: calling it runs it there."""

    __slots__ = ("generation", "isolation", "name", "number")

    def __init__(self, isolation: Isolation, generation: int, number: int, name: str) -> None:
        self.isolation = isolation
        self.generation = generation
        self.number = number
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.isolation.request("apply", self, args, kwargs)

    def __repr__(self) -> str:
        return f"<isolated scheme procedure {self.name}>"


class HostCodec(Codec):
    """Host functions leave as handles; the child's procedures and records come back as such."""

    def __init__(self, isolation: Isolation) -> None:
        self.isolation = isolation

    def export(self, obj: Any) -> tuple[Any, ...] | None:
        iso = self.isolation
        if isinstance(obj, IsolatedProcedure):
            if obj.generation != iso.generation:
                return ("opaque", f"#<procedure {obj.name} (lost)>")
            return ("procedure", 0, obj.number, obj.name)
        if callable(obj) and not isinstance(obj, type):
            return ("host", iso.handle(obj), dsl_name(obj))
        return None

    def resolve(self, pid: tuple[Any, ...]) -> Any:
        iso = self.isolation
        tag = pid[0]
        if tag == "procedure":
            return IsolatedProcedure(iso, iso.generation, pid[2], pid[3])
        if tag == "host":
            found = iso.functions.get(pid[1])
            if isinstance(found, Primitive):
                return iso.interp.converter.to_python(found)
            return found
        if tag == "record":
            return iso.record(pid[1], pid[2], pid[3])
        return super().resolve(pid)


def end_process(process: subprocess.Popen[bytes]) -> None:
    """Kill a child and every process of its session (the scripts it started, each in a
    process group of its own, and what they started), whether or not the child is still
    alive, and close its pipes."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.kill()
    kill_session(process.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)
    for pipe in (process.stdin, process.stdout):
        with contextlib.suppress(OSError):
            pipe.close()  # type: ignore[union-attr]


def session_groups(session: int) -> set[int]:
    """The process groups of the live processes in ``session`` (Linux ``/proc``; elsewhere none)."""
    groups: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = stat.read_text()
            fields = text[text.rindex(")") + 2 :].split()  # after "pid (command) "
            if fields[0] != "Z" and int(fields[3]) == session:
                groups.add(int(fields[2]))
    return groups


def kill_session(session: int, rounds: int = 5) -> None:
    """SIGKILL every process group of ``session`` (a killed child's id: it led the session),
    again until none is left, in case one forked meanwhile."""
    for _ in range(rounds):
        groups = session_groups(session)
        if not groups:
            return
        for group in groups:
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)


def child_environment() -> dict[str, str]:
    """The host's environment without secrets, able to import this package."""
    env = {k: v for k, v in os.environ.items() if not any(word in k.upper() for word in SECRET_WORDS)}
    root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env["MALLOC_ARENA_MAX"] = "2"  # glibc reserves 64 MiB of address space per arena otherwise
    return env


class Isolation:
    """The child process of one isolated interpreter and the requests sent to it."""

    def __init__(
        self, interp: Facade, settings: dict[str, Any], stdin: IO[str] | None, factory: Callable[..., Facade]
    ) -> None:
        """``factory``: the interpreter class the child builds (the facade hands it in); it
        crosses the pipe as its import path, ``module:name``."""
        self.interp = interp
        self.factory = f"{factory.__module__}:{factory.__qualname__}"
        self.settings = settings
        self.stdin = stdin
        self.timeout: float | None = settings.get("timeout")
        self.max_memory: int | None = settings.get("max_memory")
        self.codec = HostCodec(self)
        self.functions: dict[int, Any] = {}
        self._function_ids: dict[int, int] = {}
        self.process: subprocess.Popen[bytes] | None = None
        self.channel: Channel | None = None
        self.generation = 0
        self.lost: str | None = None  # why the last child ended, said with the next error
        self.lock = threading.Lock()
        self.pending: dict[int, queue.Queue[Any]] = {}
        self.pending_lock = threading.Lock()
        self.next_id = 1
        self.local = threading.local()
        self.baseline = dict(interp.global_env.vars)
        self.synced: dict[Symbol, Any] = {}
        self.synced_tasks: dict[str, Any] = {}
        self.record_types: dict[tuple[str, tuple[str, ...]], RecordType] = {}
        interp.when_tasks_start(self.runtime_made)
        self.start()

    def runtime_made(self) -> None:
        """The host made its task runtime (a host task, a model registered): what the runtime bound
        (``task-library``, ``remember`` …) is the host's own, not a definition for the child, which
        makes a runtime of its own."""
        bound = self.interp.global_env.vars
        for name in TASK_NAMES:
            key = Symbol.intern(name)
            if key in bound and key not in self.baseline and key not in self.synced:
                self.baseline[key] = bound[key]

    # -- the child ---------------------------------------------------------------------
    def start(self) -> None:
        """Start a child, send it the settings and wait until it is ready."""
        command = [sys.executable, "-c", "from interpreter.isolation.child import main; main()"]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            env=child_environment(),
            start_new_session=True,  # Ctrl-C reaches the host, which forwards it
            close_fds=True,
        )
        assert self.process.stdout is not None and self.process.stdin is not None
        weakref.finalize(self, end_process, self.process)  # the child ends with its interpreter (or the host)
        frame = None if self.max_memory is None else 2 * self.max_memory + 2**20
        self.channel = Channel(self.process.stdout, self.process.stdin, self.codec, frame)
        self.generation += 1
        self.synced = {}
        self.synced_tasks = {}
        self.channel.send(("setup", self.settings, self.stdin is not None, self.factory))
        ready = self._pump(None, time.monotonic() + START_TIMEOUT, starting=True)
        if not ready[1]:
            self.stop()
            raise ready[2]

    def stop(self) -> None:
        """Kill the child (its whole process group) and wake whoever waits on it."""
        process, self.process = self.process, None
        if process is not None:
            end_process(process)
        with self.pending_lock:
            waiting = list(self.pending.values())
        for replies in waiting:
            replies.put(None)

    def close(self) -> None:
        """End the child; the interpreter starts a new one if asked to evaluate again."""
        with self.lock:
            self.stop()

    # -- requests ------------------------------------------------------------------------
    def request(self, op: str, *args: Any) -> Any:
        """Ask the child to perform ``op``; its value, or its error raised here."""
        within = getattr(self.local, "within", None)
        if within is not None:  # a host function the child called calls back into it
            return self._answer(self._nested(op, args, within))
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.stop()
                self.start()
            number = self._number()
            self.interp.runtime.interrupted = False  # an interrupt from before this request is spent
            # no task runtime in the host yet: no event hub, so nobody to send trace events to
            traced = self.interp.tasks_made and bool(self.interp.events.subscribers)
            payload = (self._definitions(), traced, *args)
            assert self.channel is not None
            self.channel.send(("req", number, None, op, payload))
            deadline = None if self.timeout is None else time.monotonic() + self.timeout + WALL_GRACE
            reply = self._pump(number, deadline)
        return self._answer(reply)

    def _nested(self, op: str, args: tuple[Any, ...], within: int) -> tuple[Any, ...]:
        number = self._number()
        replies: queue.Queue[Any] = queue.Queue()
        with self.pending_lock:
            self.pending[number] = replies
        try:
            assert self.channel is not None
            self.channel.send(("req", number, within, op, ((), None, *args)))
            reply = replies.get()
        finally:
            with self.pending_lock:
                self.pending.pop(number, None)
        if reply is None:
            raise self._ended("it stopped")
        return reply

    def _number(self) -> int:
        with self.pending_lock:
            number = self.next_id
            self.next_id += 1
        return number

    def _answer(self, reply: tuple[Any, ...]) -> Any:
        _, _, ok, value = reply
        if ok:
            value, start, sources, usage = value
            self.interp.program_sources[start:] = sources  # from 0 again after a new child
            if usage is not None:  # the child made its task runtime
                mine = self.interp.usage
                mine.total, mine.by_task, mine.by_model = usage.total, usage.by_task, usage.by_model
            return value
        if isinstance(value, SchemeError):
            if self.lost is not None:
                value.message += f" (note: {self.lost})"
                self.lost = None
            raise value
        tag = value[0]
        if tag == "exit":
            raise SchemeExit(value[1])
        self._wait_for_end()
        raise self._ended("memory")

    def _pump(self, number: int | None, deadline: float | None, starting: bool = False) -> tuple[Any, ...]:
        """Read the child's messages until the answer to ``number`` (or ``ready``): output is
        written, calls are served on host threads, limits past their grace kill the child."""
        channel = self.channel
        assert channel is not None and self.process is not None
        root = self.interp.runtime
        try:
            while True:
                if root.interrupted and not starting:
                    root.interrupted = False
                    channel.send(("interrupt",))
                now = time.monotonic()
                if deadline is not None and now > deadline:
                    self.stop()
                    raise self._ended("start" if starting else "time")
                wait = 0.05 if deadline is None else max(0.0, min(0.05, deadline - now))
                readable, _, _ = select.select([channel.fileno()], [], [], wait)
                if not readable:
                    continue
                message = channel.recv()
                tag = message[0]
                if tag == "out":
                    self._write(message[1], message[2])
                elif tag == "event":
                    self.interp.events.emit(message[1])
                elif tag == "req":
                    HOST_WORKERS.submit(lambda message=message: self._serve(message))
                elif tag == "ready" or message[1] == number:
                    return message
                else:
                    with self.pending_lock:
                        waiting = self.pending.get(message[1])
                    if waiting is not None:
                        waiting.put(message)
        except (ChannelClosed, EOFError):
            how = self._wait_for_end()
            raise self._ended(how) from None
        except BadMessage as exc:
            self.stop()
            raise SchemeError(
                f"the isolated interpreter sent a message the host refuses ({exc}); it was stopped and its "
                "definitions were lost",
                kind="internal-error",
            ) from None
        except FrameTooLarge as exc:
            self.stop()
            raise SchemeError(
                f"the isolated interpreter sent {exc}; it was stopped and its definitions were lost",
                kind="resource-exhaustion",
                details={"resource": "memory", "limit": self.max_memory},
            ) from None
        except KeyboardInterrupt:
            self.stop()
            self.lost = "the isolated interpreter was stopped by Ctrl-C and its definitions were lost"
            raise
        except BaseException:
            if self.process is not None and self.process.poll() is not None:
                self.stop()
            raise

    def _wait_for_end(self) -> str:
        """Wait for a child that closed its pipe; what ended it (memory, time or how)."""
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(5)
            except subprocess.TimeoutExpired:
                code = None
        self.stop()
        if code == MEMORY_EXIT:
            return "memory"
        if code is not None and code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL) and self.timeout is not None:
            return "time"
        if code is not None and code < 0:
            return f"signal {signal.Signals(-code).name}"
        return f"exit status {code}"

    def _ended(self, how: str) -> SchemeError:
        """The error for a child that a limit (or something else) ended."""
        lost = "the isolated interpreter was stopped and its definitions were lost"
        self.lost = None
        if how == "memory":
            limit = self.max_memory
            return SchemeError(
                f"memory limit exceeded: max_memory = {limit} bytes ({lost})",
                kind="resource-exhaustion",
                details={"resource": "memory", "limit": limit},
            )
        if how == "time":
            return SchemeError(
                f"time limit exceeded: timeout = {self.timeout} s ({lost})",
                kind="resource-exhaustion",
                details={"resource": "time", "limit": self.timeout},
            )
        if how == "start":
            return SchemeError(f"the isolated interpreter did not start within {START_TIMEOUT:g} s", "internal-error")
        return SchemeError(f"the isolated interpreter ended unexpectedly ({how}); its definitions were lost",
                           "internal-error")

    def _write(self, stream: str, text: str) -> None:
        port = (self.interp.output if stream == "stdout" else self.interp.error_output).value
        port.write(text)
        with contextlib.suppress(OSError, ValueError):
            port.flush()

    # -- the host's side of the child's calls ----------------------------------------------
    def _serve(self, message: tuple[Any, ...]) -> None:
        """Run a call the child made (on a host thread) and send the answer back."""
        _, number, _, kind, (target, args, kwargs) = message
        self.local.within = number
        try:
            reply: tuple[Any, ...] = ("res", number, True, self._host_call(kind, target, args, kwargs))
        except SchemeError as err:
            reply = ("res", number, False, err)
        except Exception as exc:
            reply = ("res", number, False, python_exception(exc, kind))
        except KeyboardInterrupt:
            return
        finally:
            self.local.within = None
        channel = self.channel
        if channel is not None:
            with contextlib.suppress(ChannelClosed, OSError):
                channel.send(reply)

    def _host_call(self, kind: str, target: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        convert = self.interp.converter
        if kind == "stdin":
            return self._read_line()
        if kind == "model":
            return self._model_call(target, *args)
        found = self.functions[target]
        if kind == "primitive":
            value = call_host(found.name, found.fn, [convert.to_scheme(a) for a in args], {})
            return convert.to_python(value)
        if kind == "task":
            bound = {k: convert.to_scheme(v) for k, v in args[0].items()}
            return convert.to_python(found(bound))
        if isinstance(found, Primitive):
            return convert.to_python(found.fn(*[convert.to_scheme(a) for a in args]))
        return call_host(dsl_name(found), found, list(args), kwargs)

    def _read_line(self) -> str:
        if self.stdin is None:
            return ""
        runtime = self.interp.runtime
        runtime.waiting_for_input = True  # Ctrl-C now ends the read (interrupts.py)
        try:
            return self.stdin.readline()
        except (OSError, ValueError):
            return ""
        finally:
            runtime.waiting_for_input = False

    def _model_call(self, name: str, prompt: str, system: str | None, options: dict[str, Any],
                    schema: Any, attachments: tuple[str, ...], stream: bool) -> Any:
        """A model call of the child, made here: the model registered or allowed in the host. A
        call the child streams sends its text to the host's ``on_text`` (``Interpreter(on_text=…)``)."""
        model = self.interp.models.get(name)
        extra: dict[str, Any] = {}
        on_text = self.interp.tasks.gateway.on_text
        if stream and on_text is not None and accepts(model.complete, "on_text"):
            extra["on_text"] = on_text
        if schema is not None and accepts(model.complete, "schema"):
            extra["schema"] = schema
        if attachments:
            extra["attachments"] = attachments
        try:
            response = model.complete(prompt, system, options, **extra)
        except SchemeError:
            raise
        except Exception as exc:
            text = f"{type(exc).__name__}: {exc}"
            if is_transient(exc):
                raise TransientModelError(text) from None
            raise SchemeError(text, "error") from None
        response.raw = None  # the backend's own object stays here
        return response

    # -- what the host defined -------------------------------------------------------------
    def handle(self, fn: Any) -> int:
        """The number the child knows a host function by."""
        number = self._function_ids.get(id(fn))
        if number is None or self.functions.get(number) is not fn:
            number = len(self.functions) + 1
            self.functions[number] = fn
            self._function_ids[id(fn)] = number
        return number

    def _definitions(self) -> list[tuple[Any, ...]]:
        """What the host bound or registered since the child last heard (everything, for a new child)."""
        convert = self.interp.converter
        out: list[tuple[Any, ...]] = []
        for key, value in list(self.interp.global_env.vars.items()):
            if self.baseline.get(key) is value or self.synced.get(key) is value:
                continue
            self.synced[key] = value
            if isinstance(value, Primitive):
                out.append(("primitive", key.name, self.handle(value), value.min_args, value.max_args, value.doc))
            else:
                out.append(("value", key.name, convert.to_python(value)))
        if not self.interp.tasks_made:  # no task runtime in the host: no host tasks to send
            return out
        tasks = self.interp.tasks
        for name in tasks.names():
            task = tasks.lookup(name)
            if task is None or self.synced_tasks.get(name) is task:
                continue
            self.synced_tasks[name] = task
            implementation = task.implementation
            handle = self.handle(implementation) if implementation is not None else None
            out.append(("task", name, handle, task.definition))
        return out

    def record(self, type_name: str, fields: tuple[str, ...], values: dict[str, Any]) -> Any:
        """A record of the child as the pydantic model the host's converter makes for its type."""
        key = (type_name, tuple(fields))
        rtype = self.record_types.get(key)
        if rtype is None:
            rtype = self.record_types[key] = RecordType(type_name, list(fields))
        _, model, _ = self.interp.converter.record_model(rtype)
        return model(**values)

