"""The isolated interpreter's process: ``python -m interpreter.isolation.child``.

It builds the interpreter class the host names (``Interpreter``) from the host's settings, puts itself
under OS limits (``RLIMIT_AS`` from ``max_memory``, ``RLIMIT_CPU`` per evaluation from
``timeout``) and serves the host's requests over its stdin/stdout pipes until they close.
Output, standard input, host functions, host tasks and models are calls back to the host.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import queue
import resource
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ..conversion import RecordModel, SchemeProcedure
from ..datatypes import Primitive, Procedure, sym
from ..errors import SchemeError, SchemeExit, caused_by
from ..polling import poll_limits
from ..program_run import ProgramRun, dropped_failure_check
from .wire import Channel, ChannelClosed, Codec, Opaque, pipe_files

#: Exit status of a child that ran out of address space (the host reports a memory error).
MEMORY_EXIT = 86
#: Address space allowed past start-up besides twice the budget: allocator arenas, threads.
AS_HEADROOM = 64 * 2**20
#: Stack of each thread the child starts. Deep recursion hops to a new thread every ~200 levels
#: (1,000 Python frames, which need at most ~0.5 MiB of C stack); the default 8 MiB would make
#: its address space, not its memory, the limit.
THREAD_STACK = 2**20
#: CPU seconds past ``timeout`` before the kernel stops the child (the run's own watchdog comes first).
CPU_GRACE = 1.0
#: Seconds between limit checks while a thread waits for the host to answer a call.
WAIT_SLICE = 0.05


def address_space(max_memory: int) -> int:
    """What the child may map past its start-up size: twice the budget for data, as much again
    for the thread stacks deep recursion reserves (~5 KiB per level against ~0.7 KiB resident),
    and :data:`AS_HEADROOM`."""
    return 4 * max_memory + AS_HEADROOM


def virtual_bytes() -> int:
    """The process's address-space size (what RLIMIT_AS limits)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


class ChildCodec(Codec):
    """Procedures leave the child as handles; host functions go home as their own handles."""

    def __init__(self) -> None:
        self.handles: dict[int, Any] = {}
        self.ids: dict[int, int] = {}
        self.generation = 0
        self.converter: Any = None
        self.host_stub: Callable[[int, str], Callable[..., Any]] | None = None

    def export(self, obj: Any) -> tuple[Any, ...] | None:
        handle = getattr(obj, "isolation_handle", None)
        if handle is not None:
            return ("host", handle)
        if isinstance(obj, SchemeProcedure):
            obj = obj.procedure
        if isinstance(obj, Procedure):
            key = id(obj)
            number = self.ids.get(key)
            if number is None:
                number = self.ids[key] = len(self.handles) + 1
                self.handles[number] = obj
            return ("procedure", self.generation, number, obj.name)

        if isinstance(obj, RecordModel):
            rtype, names = self.converter._record_types[type(obj)]
            return ("record", rtype.name, tuple(rtype.fields), {n: getattr(obj, n) for n in names})
        return None

    def resolve(self, pid: tuple[Any, ...]) -> Any:
        tag = pid[0]
        if tag == "procedure":
            _, generation, number, name = pid
            found = self.handles.get(number) if generation == self.generation else None
            return found if found is not None else Opaque(f"#<procedure {name} (lost)>")
        if tag == "host":
            assert self.host_stub is not None
            return self.host_stub(pid[1], pid[2] if len(pid) > 2 else "host-function")
        if tag == "record":
            return Opaque(f"#<record {pid[1]}>")
        return super().resolve(pid)


class PipeStream:
    """A text stream whose writes reach the host's port ``name``, a little buffered."""

    def __init__(self, child: Child, name: str) -> None:
        self.child = child
        self.name = name
        self.parts: list[str] = []
        self.size = 0
        self.last = 0.0

    def write(self, text: str) -> int:
        self.parts.append(text)
        self.size += len(text)
        if self.size >= 8192 or ("\n" in text and time.monotonic() - self.last > 0.02):
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.parts:
            text = "".join(self.parts)
            self.parts.clear()
            self.size = 0
            self.last = time.monotonic()
            self.child.channel.send(("out", self.name, text))


class HostStdin:
    """The host's ``stdin=`` stream, a line at a time over the pipe."""

    def __init__(self, child: Child) -> None:
        self.child = child

    def readline(self) -> str:
        return str(self.child.call_host("stdin", None, (), {}) or "")


class Child:
    """The interpreter of this process and the requests it serves."""

    def __init__(self, channel: Channel, codec: ChildCodec) -> None:
        self.channel = channel
        self.codec = codec
        self.requests: queue.Queue[Any] = queue.Queue()
        self.pending: dict[int, queue.Queue[Any]] = {}
        self.pending_lock = threading.Lock()
        self.next_id = 1
        self.interp: Any = None
        self.timeout: float | None = None
        self.max_memory: int | None = None
        self.streams: list[PipeStream] = []
        self.sources_sent = 0
        self.unsubscribe: Callable[[], None] | None = None

    # -- setting up ----------------------------------------------------------------------
    def build(self, settings: dict[str, Any], stdin: bool, factory: str) -> None:
        """Make this process's interpreter: ``factory`` (``module:name``, the class the host's
        facade named) called with the host's settings."""
        out, err = PipeStream(self, "stdout"), PipeStream(self, "stderr")
        self.streams = [out, err]
        self.timeout = settings.get("timeout")
        self.max_memory = settings.get("max_memory")
        host_stdin = HostStdin(self) if stdin else None
        interp = load_factory(factory)(stdout=out, stderr=err, stdin=host_stdin, **settings)

        def use_host_models() -> None:
            """Models the program does not define itself are the host's."""
            models = interp.models
            registered = models._models

            def get_model(name: str) -> Any:
                found = registered.get(name)
                return found if found is not None else HostModel(self, name)

            models.get = get_model

        interp.when_tasks_start(use_host_models)
        if self.max_memory is not None:
            # made now, before the address space is capped (limit_memory): its imports count as start-up
            interp.start_tasks()
        self.interp = interp
        self.codec.converter = interp.converter
        self.codec.host_stub = self.host_function

    def limit_memory(self) -> None:
        """Cap the address space: what start-up took, twice the budget, and room for threads."""
        if self.max_memory is None:
            return
        limit = virtual_bytes() + address_space(self.max_memory)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    def limit_cpu(self) -> None:
        """Let this evaluation use ``timeout`` more CPU seconds (plus grace), then SIGXCPU."""
        if self.timeout is None:
            return
        usage = resource.getrusage(resource.RUSAGE_SELF)
        used = usage.ru_utime + usage.ru_stime
        soft = math.ceil(used + self.timeout + CPU_GRACE)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))

    # -- host definitions ------------------------------------------------------------------
    def sync(self, definitions: list[tuple[Any, ...]]) -> None:
        """Bind what the host defined since the last request (values, functions, tasks)."""
        interp = self.interp
        for entry in definitions:
            kind, name = entry[0], entry[1]
            if kind == "value":
                interp.global_env.vars[sym(name)] = interp.converter.to_scheme(entry[2])
            elif kind == "primitive":
                _, _, handle, lo, hi, doc = entry
                fn = self.host_primitive(handle, name)
                interp.global_env.vars[sym(name)] = Primitive(name, fn, lo, hi, doc)
            elif kind == "task":
                _, _, handle, definition = entry
                body = self.host_task(handle, name) if handle is not None else None
                interp.tasks.register(definition, body, replace=True)

    def trace(self, wanted: bool | None) -> None:
        """Send trace events to the host while it has subscribers (None: as it was)."""
        if wanted is None or wanted == (self.unsubscribe is not None):
            return
        if wanted:
            self.unsubscribe = self.interp.on_event(lambda event: self.channel.send(("event", event)))
        elif self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None

    def host_primitive(self, handle: int, name: str) -> Callable[..., Any]:
        convert = self.interp.converter

        def call(*args: Any) -> Any:
            values = [convert.to_python(a) for a in args]
            return convert.to_scheme(self.call_host("primitive", handle, values, {}))

        call.host_callable = self.host_function(handle, name)  # type: ignore[attr-defined]
        return call

    def host_task(self, handle: int, name: str) -> Callable[..., Any]:
        convert = self.interp.converter

        def run(bound: dict[str, Any]) -> Any:
            values = {k: convert.to_python(v) for k, v in bound.items()}
            return convert.to_scheme(self.call_host("task", handle, (values,), {}))

        run.takes_bound_arguments = True  # type: ignore[attr-defined]
        return run

    def host_function(self, handle: int, name: str) -> Callable[..., Any]:
        """A host Python function seen from the child: calling it calls it in the host."""

        def call(*args: Any, **kwargs: Any) -> Any:
            return self.call_host("function", handle, args, kwargs)

        call.__name__ = name
        call.isolation_handle = handle  # type: ignore[attr-defined]
        return call

    # -- calls to the host -----------------------------------------------------------------
    def call_host(self, kind: str, target: Any, args: Any, kwargs: dict[str, Any]) -> Any:
        """Ask the host to run something; serve requests nested in it while waiting. The
        run's limits are checked while it waits (a timeout abandons the call)."""
        for stream in self.streams:
            stream.flush()  # the host sees the output before what it runs
        with self.pending_lock:
            number = self.next_id
            self.next_id += 1
            replies: queue.Queue[Any] = queue.Queue()
            self.pending[number] = replies
        try:
            self.channel.send(("req", number, None, kind, (target, args, kwargs)))
            while True:
                try:
                    message = replies.get(timeout=WAIT_SLICE)
                except queue.Empty:
                    poll_limits()
                    continue
                if message[0] == "res":
                    _, _, ok, value = message
                    if ok:
                        return value
                    raise value
                self.execute(message)  # the host calls back into the child meanwhile
        finally:
            with self.pending_lock:
                self.pending.pop(number, None)

    # -- serving the host ------------------------------------------------------------------
    def read_forever(self) -> None:
        """The reader thread: replies to waiting threads, requests to the main loop."""
        try:
            while True:
                message = self.channel.recv()
                tag = message[0]
                if tag == "interrupt":
                    if self.interp is not None:
                        self.interp.runtime.interrupt()
                    continue
                number = message[1] if tag == "res" else message[2]  # a nested request names its caller
                if number is None:
                    self.requests.put(message)
                    continue
                with self.pending_lock:
                    waiting = self.pending.get(number)
                if waiting is not None:
                    waiting.put(message)
        except (ChannelClosed, EOFError, OSError):
            pass
        os._exit(0)  # the host is gone: stop at once, even in the middle of a run

    def serve(self) -> None:
        while True:
            self.execute(self.requests.get())

    def execute(self, message: tuple[Any, ...]) -> None:
        """Run one request and answer it: a value, or an error (which crosses with its backtrace)."""
        _, number, within, op, payload = message
        nested = within is not None
        try:
            if not nested:
                self.limit_cpu()
            value = self.perform(op, payload)
            reply: tuple[Any, ...] = ("res", number, True, value)
        except MemoryError:
            self.out_of_memory(number)
            return
        except SchemeExit as done:
            reply = ("res", number, False, ("exit", done.code))
        except SchemeError as err:
            if caused_by(err, MemoryError):
                self.out_of_memory(number)
                return
            reply = ("res", number, False, self.no_thread(err) if caused_by(err, RuntimeError) else err)
        except RecursionError:
            reply = ("res", number, False, SchemeError("nesting too deep for the host stack", "resource-exhaustion"))
        for stream in self.streams:
            with contextlib.suppress(ChannelClosed):
                stream.flush()
        self.send_reply(reply)

    def send_reply(self, reply: tuple[Any, ...]) -> None:
        try:
            self.channel.send(reply)
        except ChannelClosed:
            raise
        except Exception as exc:  # a value that cannot be written (too deep, a type pickle refuses)
            err = reply[3] if not reply[2] and isinstance(reply[3], SchemeError) else None
            if err is not None:
                err.irritants = [Opaque(repr(x)) for x in err.irritants]
                err.payload = None
                with contextlib.suppress(Exception):
                    self.channel.send(reply)
                    return
            message = f"the value cannot leave the isolated interpreter: {type(exc).__name__}: {exc}"
            self.channel.send(("res", reply[1], False, SchemeError(message, "value-error")))

    def no_thread(self, err: SchemeError) -> SchemeError:
        """A thread that could not start under RLIMIT_AS (deep recursion, parallel branches) is the
        memory limit; nothing was half done, so the child lives on."""
        if "can't start new thread" not in err.message:
            return err
        limit = self.max_memory
        memory = SchemeError(
            f"memory limit exceeded: max_memory = {limit} bytes (no address space left for another thread)",
            kind="resource-exhaustion",
            details={"resource": "memory", "limit": limit},
        )
        memory.span, memory.frames = err.span, err.frames
        return memory

    def out_of_memory(self, number: int) -> None:
        """The address-space limit was hit: say so and end (the state may be broken)."""
        self.interp = None
        with contextlib.suppress(Exception):
            self.channel.send(("res", number, False, ("memory", None)))
        os._exit(MEMORY_EXIT)

    def perform(self, op: str, payload: tuple[Any, ...]) -> Any:
        interp = self.interp
        convert = interp.converter
        definitions, traced, *args = payload
        self.sync(definitions)
        self.trace(traced)
        if op == "eval":
            source, filename = args
            return self.answer(interp.eval(source, filename=filename))
        if op == "eval_scheme":
            source, filename, whole, check = args
            value = interp.eval_scheme(source, filename=filename, whole=whole, check=check)
            return self.answer(convert.to_python(value))
        if op == "eval_file":
            return self.answer(interp.eval_file(args[0]))
        if op == "run_program":  # the command line's run (program_run.ProgramRun), with its warnings

            program = ProgramRun(*args[0])
            interp.command_line = list(program.command_line)
            interp.on_top_level_value = dropped_failure_check(interp, strict=program.strict)
            program.run(interp)
            return self.answer(None)
        if op == "apply":
            proc, positional, named = args
            if isinstance(proc, Opaque):
                raise SchemeError(
                    f"{proc.text}: the isolated interpreter was restarted and its definitions were lost",
                    kind="unbound-variable",
                )
            return self.answer(interp.apply(proc, *positional, **named))
        if op == "call":
            name, positional, named = args
            return self.answer(interp.call(name, *positional, **named))
        if op == "lookup":
            return self.answer(interp[args[0]])
        raise ValueError(f"unknown request {op!r}")

    def answer(self, value: Any) -> tuple[Any, int, list[tuple[str, str]], Any]:
        """A value, the program definitions the host has not seen yet (for batch workers: from
        which index, and which) and the model usage so far (None: no task runtime, so no usage)."""
        sources = self.interp.program_sources
        start, self.sources_sent = self.sources_sent, len(sources)
        usage = self.interp.usage if self.interp.tasks_made else None
        return (value, start, sources[start:], usage)


def load_factory(path: str) -> Callable[..., Any]:
    """The class or function named ``module:qualified.name``."""
    module, _, name = path.partition(":")
    found: Any = importlib.import_module(module)
    for part in name.split("."):
        found = getattr(found, part)
    return found


def main() -> None:
    """Set up the pipes (stray prints go to stderr, not into the protocol), build, serve."""
    threading.stack_size(THREAD_STACK)
    reader, writer = pipe_files(os.dup(0), os.dup(1))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    codec = ChildCodec()
    channel = Channel(reader, writer, codec)
    child = Child(channel, codec)
    try:
        _, settings, stdin, factory = channel.recv()
    except (ChannelClosed, EOFError):
        return
    try:
        child.build(settings, stdin, factory)
    except Exception as exc:  # a setting the interpreter refuses: the host raises it

        error = exc if isinstance(exc, SchemeError) else SchemeError(f"{type(exc).__name__}: {exc}", "value-error")
        channel.send(("ready", False, error))
        return
    threading.Thread(target=child.read_forever, name="taskscheme-isolation-reader", daemon=True).start()
    child.limit_memory()
    channel.send(("ready", True, virtual_bytes()))
    child.serve()
    sys.stdout.flush()


class HostModel:
    """A model the host holds (registered there, or installed with llm and allowed): each
    call goes to the host, so keys and host objects never enter the child."""

    runs_in_interpreter = False

    def __init__(self, child: Child, name: str) -> None:
        self.child = child
        self.name = name

    def complete(
        self,
        prompt: str,
        system: str | None,
        options: dict[str, Any],
        schema: dict[str, Any] | None = None,
        attachments: tuple[str, ...] = (),
        on_text: Callable[[str], None] | None = None,
    ) -> Any:
        """The host makes the call; a streaming one (``on_text`` given) sends its text to the
        host's own ``on_text`` there, as it arrives."""
        request = (prompt, system, options, schema, tuple(attachments), on_text is not None)
        return self.child.call_host("model", self.name, request, {})


if __name__ == "__main__":
    main()
