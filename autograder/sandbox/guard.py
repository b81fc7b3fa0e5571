"""Keep notebook code from rewriting the grader that runs beside it in the sandbox.

The probes run in the same interpreter as the student's code, so before any of that code runs
the worker takes a `snapshot` of everything a probe relies on: the functions, classes and
modules of every module loaded so far (the standard library's, the probes', the plain-data
codec's), every entry of the grader's own modules (its data too, and the contents of their
tables, even behind a read-only view), the attributes of their classes, the code, defaults and
closures of their functions, the probe registry and `sys.modules`; and, the same way, the names
the notebook's trusted setup cells defined (SETUP), from which the probes build a test's world.
`restore` compares the interpreter with the snapshot by identity and puts back whatever notebook
code rebound, reporting each change by name. The standard library's data (its caches) changes
honestly and is left alone, so no probe reads it while a test runs (sandbox/probes/__init__.py).
`restore`
is written to survive being called after hostile code: it reads no global name, only its own
default arguments, which `install`'s audit hook keeps notebook code from replacing.

The audit hook (`sys.addaudithook`, installed before any notebook code) refuses, with a
RuntimeError in the notebook's own cell, what would let code reach past Python's object model:
adding audit hooks of its own, importing `ctypes` and the interpreter's test modules, opening
a process's memory under /proc, tracing or profiling other frames, finding objects through the
garbage collector, and assigning the code, defaults or attributes of the grader's functions
and classes. Each of these refusals is reported. It also keeps the call stack out of reach
(sys._getframe, and the frames of tracebacks, generators and coroutines), since from any frame
`f_back` leads to the probe that called the code, with its locals: that refusal is silent,
since the standard library asks for frames in honest places, and takes a ValueError from
sys._getframe as "no frame there". For the same reason signal handlers are called without
their frame (shield_signal_handlers), and no second copy of `_signal` can be made
(shield_builtin_modules). Finally it refuses to open, list or connect to anything in the
folders the job names private (the course's, the class's) but those it keeps open (data/, the
sandbox's code, the interpreter's, the notebook's scratch folder): without bubblewrap they are
on the notebook's own file system.

What remains in reach is the notebook's own process and what it computes; the worker forks a
fresh process for every hidden case from the restored state, so one case cannot prepare
another.
"""

from __future__ import annotations

import builtins
import gc
import os
import stat
import sys
import types

TYPE_CHECKING = False  # no import of typing in the sandbox at run time

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# Containers at module level whose contents probes use; compared item by item.
_REGISTRIES = (("sandbox.probes", "PROBES"), ("copy", "_deepcopy_dispatch"),
               ("copyreg", "dispatch_table"))
# Module entries that code may rebind for its own purposes without touching any probe.
_FREE = {"sys": None, "builtins": {"_"}, "__main__": None}
# Modules whose import reaches past the object model (raw memory, interpreter internals).
FORBIDDEN_IMPORTS = frozenset({"ctypes", "_ctypes", "_testcapi", "_testinternalcapi",
                               "_testbuffer", "_testmultiphase", "_xxsubinterpreters",
                               "_xxtestfuzz", "_testimportmultiple", "_testsinglephase",
                               "_posixsubprocess_unsafe", "cffi", "_cffi_backend",
                               # loaded before any notebook code; a fresh copy, imported after
                               # deleting it from sys.modules, would hold an unshielded signal()
                               "_signal"})


# The attributes through which code reaches a frame other than through sys._getframe (each read
# raises the audit event object.__getattr__); from any frame, f_back leads to its callers.
STACK_FRAMES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# What finds any object in the interpreter, the probes' own included.
INTROSPECTION = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents",
                           "sys._current_frames", "sys._current_exceptions"})


class Snapshot(tuple):
    """(modules, classes, functions with closures, registries, instances, protected ids, guarded
    functions), all immutable; the tuple holds every object it names alive."""


def _trusted_modules() -> list[tuple[str, types.ModuleType]]:
    found = []
    for name, module in list(sys.modules.items()):
        if isinstance(module, types.ModuleType) and name not in ("__main__",):
            found.append((name, module))
    return found


# The name under which the names the trusted setup cells defined are kept (and reported).
SETUP = "<setup cells>"


def snapshot(setup: dict | None = None) -> Snapshot:
    """Everything probes rely on, as immutable tuples of the very objects (call it before any
    notebook code runs). `setup` is the notebook's namespace as the trusted setup cells left
    it: the names they defined, the attributes of their classes and the code of their functions
    are kept like the grader's own (the probes build the world a test runs in from them)."""
    modules, classes, functions, registries, instances = [], [], [], [], []
    guarded: list = []  # every function whose code the audit hook keeps
    seen_classes: set[int] = set()
    seen_functions: set[int] = set()
    held: set[int] = set()  # ids of the tables whose contents are kept

    function_type, module_type, builtin_type = (types.FunctionType, types.ModuleType,
                                                types.BuiltinFunctionType)

    def add_function(function: object, owner: str) -> None:
        if isinstance(function, (staticmethod, classmethod)):
            function = function.__func__
        if isinstance(function, property):
            for part in (function.fget, function.fset, function.fdel):
                if part is not None:
                    add_function(part, owner)
            return
        if not isinstance(function, types.FunctionType) or id(function) in seen_functions:
            return
        seen_functions.add(id(function))
        guarded.append(function)
        if function.__closure__:
            add_closure(function, owner)

    def add_closure(function: types.FunctionType, owner: str) -> None:
        # Code and defaults cannot change (the audit hook refuses); closure cells can.
        cells = tuple((cell, cell.cell_contents) for cell in function.__closure__ or ()
                      if _has_contents(cell))
        if cells:
            functions.append((owner, function, function.__code__, function.__defaults__,
                              function.__kwdefaults__, cells))

    def add_class(cls: type, owner: str, defined_in: object) -> None:
        """Keep the attributes of `cls` (and its functions) when `defined_in` defined it."""
        if id(cls) not in seen_classes and getattr(cls, "__module__", None) == defined_in \
                and _mutable(cls):
            seen_classes.add(id(cls))
            attributes = tuple(vars(cls).items())
            classes.append((owner, cls, attributes))
            for _, member in attributes:
                if type(member) is function_type:  # the common case of add_function, inline
                    if id(member) not in seen_functions:
                        seen_functions.add(id(member))
                        guarded.append(member)
                        if member.__closure__:
                            add_closure(member, owner)
                elif isinstance(member, (staticmethod, classmethod, property)):
                    add_function(member, owner)  # what else it holds is no function

    own = __package__ or "sandbox"  # this package: the probes and what runs them
    for name, module in _trusted_modules():
        namespace = vars(module)
        free = _FREE.get(name, set())
        if free is None:
            continue
        # Functions, classes, modules and other callables: what code calls or looks up.
        # Data (a cache filled lazily, a counter) may change honestly and is left alone,
        # except in the grader's own modules, whose data (a probe's time limits, its job's
        # settings) never changes once loaded.
        ours = name == own or name.startswith(own + ".")
        entries = tuple([(key, value) for key, value in namespace.items()
                         if key not in free and (ours or callable(value)
                                                 or isinstance(value, module_type))])
        modules.append((name, module, namespace, entries))
        if ours:  # the contents of its tables too (a read-only view's dict is in gc's reach)
            for _, value in entries:
                table = value if type(value) is dict else next(
                    (inner for inner in gc.get_referents(value) if type(inner) is dict), None) \
                    if type(value) is types.MappingProxyType else None
                if table is not None and id(table) not in held:
                    held.add(id(table))
                    registries.append((table, tuple(table.items()), True))
        for _, value in entries:
            kind = type(value)
            if kind is builtin_type:  # no code, closure or attributes of its own to keep
                continue
            if kind is function_type:  # the common case of add_function, inline
                if id(value) not in seen_functions:
                    seen_functions.add(id(value))
                    guarded.append(value)
                    if value.__closure__:
                        add_closure(value, name)
                continue
            if isinstance(value, type):
                add_class(value, name, name)
            elif isinstance(value, types.FunctionType):
                add_function(value, name)
            if type(value).__module__ == name and hasattr(value, "__dict__") \
                    and not isinstance(value, (type, types.ModuleType, types.FunctionType)):
                instances.append((name, value, type(value)))
            elif isinstance(value, types.MethodType) and hasattr(value.__self__, "__dict__") \
                    and type(value.__self__).__module__ == name:
                instances.append((name, value.__self__, type(value.__self__)))
    if setup is not None:
        holder = types.ModuleType(SETUP)  # stands for the setup cells in sys.modules
        sys.modules[SETUP] = holder
        entries = tuple([(key, value) for key, value in setup.items()
                         if not (key.startswith("__") and key.endswith("__"))])
        modules.append((SETUP, holder, setup, entries))
        for _, value in entries:
            if isinstance(value, type):
                add_class(value, SETUP, setup.get("__name__"))
            elif isinstance(value, types.FunctionType):
                add_function(value, SETUP)
    for module_name, attribute in _REGISTRIES:
        registry_module = sys.modules.get(module_name)
        registry = getattr(registry_module, attribute, None) \
            if registry_module is not None else None
        if isinstance(registry, dict) and id(registry) not in held:
            held.add(id(registry))
            registries.append((registry, tuple(registry.items()), False))
    protected = frozenset([id(function) for function in guarded]
                          + [id(entry[1]) for entry in classes]
                          + [id(entry[1]) for entry in modules]
                          + [id(entry[1]) for entry in instances])
    return Snapshot((tuple(modules), tuple(classes), tuple(functions), tuple(registries),
                     tuple(instances), protected, tuple(guarded)))


def narrow(saved: Snapshot, package: str, skip: tuple[str, ...] = ()) -> Snapshot:
    """The part of `saved` that the modules of `package` call at run time: those modules
    (except `skip`), the modules and classes they name at their top level, and builtins;
    cheap enough to check after every hidden case."""
    modules = saved[0]
    names = {"builtins", SETUP}
    typing_only = {"typing", "types", "collections.abc", "importlib", "pkgutil", "__future__"}
    for name, _module, _, entries in modules:
        if (name == package or name.startswith(package + ".")) and name not in skip:
            names.add(name)
            names.update(getattr(value, "__name__", "") for _, value in entries
                         if isinstance(value, types.ModuleType))
            names.update(getattr(value, "__module__", "") or "" for _, value in entries
                         if isinstance(value, (type, types.FunctionType)))
    names -= typing_only
    return Snapshot((tuple(entry for entry in modules if entry[0] in names),
                     tuple(entry for entry in saved[1] if entry[0] in names),
                     tuple(entry for entry in saved[2] if entry[0] in names),
                     saved[3],
                     tuple(entry for entry in saved[4] if entry[0] in names),
                     saved[5], saved[6]))


def _mutable(cls: type) -> bool:
    """Whether code can set attributes of `cls` (classes written in C mostly cannot)."""
    heap, immutable = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE
    return bool(cls.__flags__ & heap) and not cls.__flags__ & immutable


def _has_contents(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


_MISSING = object()


def restore(saved: Snapshot, modules_table: dict = sys.modules, _missing: object = _MISSING,
            _len: Callable = builtins.len, _type: Callable = builtins.type,
            _dict_get: Callable = dict.get, _setattr: Callable = type.__setattr__,
            _delattr: Callable = type.__delattr__, _object_delattr: Callable = object.__delattr__,
            _object_setattr: Callable = object.__setattr__, _vars: Callable = builtins.vars,
            _hasattr: Callable = builtins.hasattr, _tuple: Callable = builtins.tuple) -> list[str]:
    """Put back everything in `saved` that was rebound since; return what was, by name.

    Uses only its arguments (defaults captured when the grader started, held in a tuple that
    the audit hook keeps notebook code from replacing), never a global name.
    """
    changed = []
    modules, classes, functions, registries, instances = saved[:5]
    for name, module, namespace, entries in modules:
        if _dict_get(modules_table, name, _missing) is not module:
            modules_table[name] = module
            changed.append(f"sys.modules[{name!r}]")
        for key, value in entries:
            if _dict_get(namespace, key, _missing) is not value:
                namespace[key] = value
                changed.append(f"{name}.{key}")
    for _owner, cls, attributes in classes:
        current = _vars(cls)  # a mappingproxy: its get cannot be replaced
        for key, value in attributes:
            if current.get(key, _missing) is not value:
                _setattr(cls, key, value)
                changed.append(f"{cls.__qualname__}.{key}")
        if _len(current) != _len(attributes):
            known = {key for key, _ in attributes}
            for key in _tuple(current):
                if key not in known:
                    _delattr(cls, key)
                    changed.append(f"{cls.__qualname__}.{key} (added)")
    for _owner, function, code, defaults, kwdefaults, cells in functions:
        if function.__code__ is not code:
            function.__code__ = code
            changed.append(f"{function.__qualname__}.__code__")
        if function.__defaults__ is not defaults:
            function.__defaults__ = defaults
            changed.append(f"{function.__qualname__}.__defaults__")
        if function.__kwdefaults__ is not kwdefaults:
            function.__kwdefaults__ = kwdefaults
            changed.append(f"{function.__qualname__}.__kwdefaults__")
        for cell, contents in cells:
            if cell.cell_contents is not contents:
                cell.cell_contents = contents
                changed.append(f"{function.__qualname__} (closure)")
    for registry, items, whole in registries:
        for key, value in items:
            if _dict_get(registry, key, _missing) is not value:
                registry[key] = value
                changed.append(f"registry entry {key!r}")
        # The grader's own tables hold exactly what they held (a stdlib registry such as
        # copyreg's may grow honestly when notebook code imports a module).
        if whole and _len(registry) != _len(items):
            for key in _tuple(registry):
                kept = False
                for known, _ in items:  # by identity: no hash or == of notebook code runs
                    kept = kept or key is known
                if not kept:
                    del registry[key]
            changed.append("the contents of a table of the grader's")
    for _owner, instance, cls in instances:
        if _type(instance) is not cls:
            _object_setattr(instance, "__class__", cls)
            changed.append(f"the class of {cls.__qualname__} object")
        try:
            own = _vars(instance)
        except TypeError:
            continue
        class_attributes = _vars(cls)
        for key in _tuple(own):
            member = class_attributes.get(key, _missing)
            if member is not _missing and _hasattr(_type(member), "__get__"):
                _object_delattr(instance, key)
                changed.append(f"{cls.__qualname__} object's {key}")
    return changed


def shield_signal_handlers() -> Callable:
    """Have every Python signal handler called with None for the frame: Python passes a
    handler the frame that was running when the signal arrived, which may be a probe's, and
    from it f_back and f_locals reach every caller's locals. Replaces `_signal.signal` (which
    `signal.signal` calls) with a function that installs a callable handler behind a wrapper;
    the original is held only in that function's defaults, which `install` keeps unreadable.
    Call it before the snapshot."""
    import _signal

    def signal(signalnum: object, handler: Callable | int, _install: Callable = _signal.signal,
               _callable: Callable = builtins.callable) -> object:
        if _callable(handler):
            def framed(signum: int, frame: object, _handler: Callable = handler) -> object:  # type: ignore[assignment]
                return _handler(signum, None)

            return _install(signalnum, framed)
        return _install(signalnum, handler)

    _signal.signal = signal  # type: ignore[assignment]
    return signal


def shield_builtin_modules() -> Callable:
    """Refuse a fresh copy of a module built into the interpreter that the guard keeps
    (`_signal`, whose copy would hold an unshielded signal(); `_imp`, whose copy would hold an
    unshielded create_builtin; and every forbidden one): `_imp.create_builtin`, through which
    importlib makes built-in modules, raises no import audit event. The original is held only in
    the replacement's defaults, which `install` keeps unreadable. Call it before the snapshot."""
    import _imp

    def create_builtin(spec: object, _create: Callable = _imp.create_builtin,
                       _refused: frozenset = FORBIDDEN_IMPORTS | {"_imp"},
                       _getattr: Callable = builtins.getattr, _type: Callable = builtins.type,
                       _error: type = ImportError, _spec: type = _BuiltinSpec) -> object:
        name = _getattr(spec, "name", None)
        if _type(name) is not str or name in _refused:
            raise _error(f"{name!r} is not available while grading")
        return _create(_spec(name))  # the name read once: a spec cannot change it meanwhile

    _imp.create_builtin = create_builtin  # type: ignore[assignment]
    return create_builtin


def frameless_tracebacks() -> None:
    """Have the `traceback` module (and `logging`, which prints through it) show an error
    without its frames, as the audit hook keeps them out of reach: `traceback.format_exc()`,
    `print_exc()`, `print_stack()` and `logging.exception(...)` then give the exception's type
    and message instead of raising inside honest code that only reports an error."""
    import traceback

    def walk_tb(tb: object) -> Iterator:
        return iter(())

    def extract_stack(f: object = None, limit: object = None) -> traceback.StackSummary:
        return traceback.StackSummary()

    def format_stack(f: object = None, limit: object = None) -> list[str]:
        return []

    def print_stack(f: object = None, limit: object = None, file: object = None) -> None:
        return None

    traceback.walk_tb = walk_tb  # type: ignore[assignment]
    traceback._walk_tb_with_full_positions = walk_tb  # type: ignore[attr-defined]
    traceback.walk_stack = walk_tb  # type: ignore[assignment]
    traceback.extract_stack = extract_stack  # type: ignore[assignment]
    traceback.format_stack = format_stack  # type: ignore[assignment]
    traceback.print_stack = print_stack  # type: ignore[assignment]


class _BuiltinSpec:
    """What `_imp.create_builtin` reads of a module spec: its name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


def install(saved: Snapshot, report: Callable[[str], None], also: tuple = (),
            hidden: tuple = (), private: tuple = (), allowed: tuple = (),
            readonly: tuple = (), writable: tuple = ()) -> Callable:
    """Install the audit hook that guards `saved` and the functions in `also` (and itself);
    `report(text)` hears every refusal. The defaults of the functions in `hidden` cannot be
    read (shield_signal_handlers). Files and folders under `private` cannot be opened, listed
    or connected to as a database, except under a deeper folder of `allowed` (paths as
    realpath gives them). Nothing under `private` or `readonly` (the sandbox package) can be
    written, created, removed, renamed, linked, or have its mode, owner, times or extended
    attributes changed, except under a deeper folder of `writable` (the scratch folder); nor
    can a folder in or above `readonly` be opened as a descriptor."""
    keep = [*also, *hidden]

    def hook(event: str, args: tuple, _protected: frozenset = frozenset(), _keep: tuple = (),
             _report: Callable = report, _id: Callable = builtins.id,
             _isinstance: Callable = builtins.isinstance, _str: type = builtins.str,
             _forbidden: frozenset = FORBIDDEN_IMPORTS, _into_memory: Callable = _into_memory,
             _error: type = RuntimeError, _import_error: type = ImportError,
             _permission_error: type = PermissionError, _type: Callable = builtins.type,
             _bytes: type = builtins.bytes, _realpath: Callable = _resolved,
             _near: Callable = _near, _database_path: Callable = _database_path,
             _stat: Callable = os.stat, _is_dir: Callable = stat.S_ISDIR,
             _os_error: type[OSError] = OSError,
             _fspath: Callable = os.fsdecode, _value_error: type = ValueError,
             _frames: frozenset = STACK_FRAMES, _introspection: frozenset = INTROSPECTION,
             _hidden: frozenset = frozenset(), _private: tuple = (),
             _allowed: tuple = (), _len: Callable = builtins.len, _readonly: tuple = (),
             _writable: tuple = (), _write_names: frozenset = WRITE_EVENT_NAMES,
             _write_events: tuple = WRITE_EVENTS,
             _write_flags: int = WRITE_FLAGS, _int: type = builtins.int,
             _written: Callable = _written, _sqlite_read_only: Callable = _sqlite_read_only,
             _readlink: Callable = os.readlink) -> None:
        if event in _write_names and (_private or _readonly):
            # (positions of the paths written, and of the folder descriptor each is relative to)
            positions: tuple = ()
            for name, where_in_args in _write_events:
                if name == event:
                    positions = where_in_args
            for at, fd_at in positions:
                if _len(args) <= at:
                    continue
                path = args[at]
                where = args[fd_at] if fd_at is not None and _len(args) > fd_at else -1
                if _isinstance(path, (bytes, bytearray)):
                    path = _fspath(_bytes(path))
                if not _isinstance(path, _str):  # a descriptor, opened under these checks
                    continue
                if not path.startswith("/") and _type(where) is _int and where >= 0:
                    try:  # relative to a folder descriptor: resolved from that folder
                        path = _readlink(f"/proc/self/fd/{where}") + "/" + path
                    except _os_error:
                        pass  # no /proc (macOS): checked from the working folder
                real = _realpath(path)
                if _written(real, _private + _readonly, _writable):
                    _report(f"change {path}, in the sandbox's code or the course's or the "
                            "class's folders")
                    raise _permission_error(f"the grader refuses to change {path}")
            if event == "os.link" and _len(args) > 0 and _isinstance(args[0], _str) \
                    and _written(_realpath(args[0]), _private + _readonly, _writable):
                # a second name for a protected file would write it
                _report(f"link to {args[0]}, in the sandbox's code or the course's folders")
                raise _permission_error(f"the grader refuses to link to {args[0]}")
            if event != "os.symlink" and event != "os.link":
                return
        if event == "object.__setattr__" or event == "object.__delattr__":
            target, name = args[0], args[1]
            if _id(target) in _protected:
                what = f"{event[7:-2]} {name!r} of the grader's {_type(target).__name__}"
                _report(what)
                raise _error(f"the grader refuses to {what}")
        elif event == "sys.addaudithook":
            _report("add an audit hook")
            raise _error("the grader refuses to add an audit hook")
        elif event == "import":
            module = args[0]
            if _isinstance(module, _str) and module.partition(".")[0] in _forbidden:
                _report(f"import {module}")
                raise _import_error(f"{module} is not available while grading")
        elif event == "open" or event == "os.listdir" or event == "os.scandir" \
                or event == "sqlite3.connect":
            path = args[0]
            if _isinstance(path, (bytes, bytearray)):
                path = _fspath(_bytes(path))
            if not _isinstance(path, _str):
                return
            given = path
            if event == "sqlite3.connect":
                path = _database_path(path)
                if path is None:
                    _report("connect to a percent-encoded file: URI")
                    raise _permission_error("the grader refuses percent-encoded file: URIs")
            real = _realpath(path)
            if event == "open" and (_into_memory(path) or _into_memory(real)):
                _report(f"open {path}")
                raise _permission_error(f"the grader refuses to open {path}")
            if (event == "sqlite3.connect" and not _sqlite_read_only(given)
                    or event == "open" and _len(args) > 2 and _type(args[2]) is _int
                    and args[2] & _write_flags) \
                    and _written(real, _private + _readonly, _writable):
                _report(f"write {path}, in the sandbox's code or the course's or the class's "
                        "folders")
                raise _permission_error(f"the grader refuses to write {path}")
            # A descriptor of a folder in or above the sandbox's code or a private folder
            # reaches what is inside by relative paths.
            code = event == "open" and _readonly and _near(real, _readonly)
            if code or event == "open" and _private and _near(real, _private):
                try:
                    folder = _is_dir(_stat(real).st_mode)
                except _os_error:
                    folder = False
                if folder:
                    _report(f"open the folder {path} as a descriptor")
                    raise _permission_error(f"the grader refuses to open {path} as a folder"
                                            if code else
                                            f"{path} is not available while grading")
            # The deepest folder that holds the path decides: private, or kept open.
            deepest = -1
            for folder in _private:
                if (real == folder or real.startswith(folder + "/")) and _len(folder) > deepest:
                    deepest = _len(folder)
            if deepest >= 0:
                for kept in _allowed:
                    if (real == kept or real.startswith(kept + "/")) and _len(kept) >= deepest:
                        return
                _report(f"read {path}, in the course's or the class's folders")
                raise _permission_error(f"{path} is not available while grading")
        elif event == "os.symlink" or event == "os.link":
            target, link = args[0], args[1]
            if _isinstance(target, (bytes, bytearray)):
                target = _fspath(_bytes(target))
            if _isinstance(link, (bytes, bytearray)):
                link = _fspath(_bytes(link))
            if not _isinstance(target, _str):
                return
            if _into_memory(target):
                _report(f"link to {target}")
                raise _permission_error(f"the grader refuses to link to {target}")
            if _private and not target.startswith("/") and _isinstance(link, _str):
                target = link.rpartition("/")[0] + "/" + target if "/" in link else target
            if _private and _near(_realpath(target), _private):
                _report(f"link to {target}, in or above the course's or the class's folders")
                raise _permission_error(f"the grader refuses to link to {target}")
        elif event == "sys.settrace" or event == "sys.setprofile":
            _report(event.replace("sys.", "call sys."))
            raise _error(f"the grader refuses {event} while grading")
        elif event == "sys._getframe":
            # Silently: the standard library asks for its caller's frame in places (namedtuple,
            # enum, typing, logging) and takes a ValueError as "no frame there".
            raise _value_error("the grader keeps the call stack out of reach while grading")
        elif event == "object.__getattr__":
            if args[1] in _frames:  # a traceback's, generator's or coroutine's frame
                raise _error("the grader keeps the call stack out of reach while grading")
            if _id(args[0]) in _hidden:
                _report(f"read {args[1]} of the grader's {_type(args[0]).__name__}")
                raise _error(f"the grader refuses to read {args[1]} of its own functions")
        elif event in _introspection:
            _report(f"call {event}")
            raise _error(f"the grader refuses {event} while grading")

    # Defaults are a tuple, which nobody can change in place; the hook guards itself too.
    keep.append(hook)
    # `hook` is defined with defaults above, so they are a tuple, never None.
    defaults = list(hook.__defaults__ or ())
    names = hook.__code__.co_varnames[:hook.__code__.co_argcount]
    first = len(names) - len(defaults)
    for name, value in (("_protected", saved[5] | frozenset(map(id, keep))), ("_keep", tuple(keep)),
                        ("_hidden", frozenset(map(id, hidden))), ("_private", tuple(private)),
                        ("_allowed", tuple(allowed)), ("_readonly", tuple(readonly)),
                        ("_writable", tuple(writable))):
        defaults[names.index(name) - first] = value
    hook.__defaults__ = tuple(defaults)
    sys.addaudithook(hook)
    return hook


def _resolved(path: str, _lstat: Callable = os.lstat, _readlink: Callable = os.readlink,
              _getcwd: Callable = os.getcwd, _is_link: Callable = stat.S_ISLNK,
              _error: type[OSError] = OSError) -> str:
    """What os.path.realpath gives for `path`, from its defaults alone: posixpath.realpath
    looks up abspath and its helpers in posixpath's module, which notebook code can rebind
    (and put back) to blind a check."""
    pending = (path if path.startswith("/") else _getcwd() + "/" + path).split("/")[::-1]
    done: list = []
    hops = 0
    while pending:
        part = pending.pop()
        if part == "" or part == ".":
            continue
        if part == "..":
            if done:
                done.pop()
            continue
        candidate = "/" + "/".join([*done, part])
        try:
            link = _is_link(_lstat(candidate).st_mode)
        except _error:
            link = False  # not there (yet): kept as written
        if link and hops < 40:
            hops += 1
            target = _readlink(candidate)
            if target.startswith("/"):
                done = []
            pending += target.split("/")[::-1]
        else:
            done.append(part)
    return "/" + "/".join(done)


# Audit events that change the file system: for each, the positions in its arguments of the
# paths it changes and of the folder descriptor each is relative to (None: none). os.truncate
# and os.chmod name a descriptor (an int) when called with one, which the checks pass over:
# it was opened under them. mkfifo and mknod raise no audit event.
WRITE_EVENTS = (("os.rename", ((0, 2), (1, 3))), ("os.remove", ((0, 1),)),
                ("os.rmdir", ((0, 1),)), ("os.mkdir", ((0, 2),)), ("os.chmod", ((0, 2),)),
                ("os.chown", ((0, 3),)), ("os.truncate", ((0, None),)),
                ("os.utime", ((0, 3),)), ("os.symlink", ((1, 2),)), ("os.link", ((1, 3),)),
                ("os.setxattr", ((0, None),)), ("os.removexattr", ((0, None),)),
                ("os.chflags", ((0, None),)), ("os.lchflags", ((0, None),)),
                ("os.lchmod", ((0, None),)))
WRITE_EVENT_NAMES = frozenset(name for name, _ in WRITE_EVENTS)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _written(real: str, protected: tuple, writable: tuple, _len: Callable = builtins.len) -> bool:
    """Whether writing `real` is refused: the deepest of `protected` that holds it is deeper
    than every folder of `writable` that holds it."""
    deepest = -1
    for folder in protected:
        if (real == folder or real.startswith(folder + "/")) and _len(folder) > deepest:
            deepest = _len(folder)
    if deepest < 0:
        return False
    for kept in writable:
        if (real == kept or real.startswith(kept + "/")) and _len(kept) >= deepest:
            return False
    return True


def _sqlite_read_only(name: str) -> bool:
    """Whether an `sqlite3.connect` name opens its database read-only (a `file:` URI with
    mode=ro); any other connection may create or change the file."""
    if not name.startswith("file:"):
        return False
    query = name.partition("?")[2].partition("#")[0]
    return "mode=ro" in query.split("&")


def _near(real: str, folders: tuple) -> bool:
    """Whether `real` is one of `folders`, inside one or above one (a folder from which a
    relative path, or a descriptor of it, reaches into one)."""
    for folder in folders:
        if real == folder or real.startswith(folder + "/") or folder.startswith(real + "/") \
                or real == "/":
            return True
    return False


def _database_path(name: str) -> str | None:
    """The file an `sqlite3.connect` name opens: the path of a `file:` URI; None for one
    whose path is percent-encoded (taken as a refusal)."""
    if not name.startswith("file:"):
        return name
    rest = name[5:]
    if rest.startswith("//"):  # file://host/path: the path starts at the next slash
        slash = rest.find("/", 2)
        rest = rest[slash:] if slash >= 0 else "/"
    for end in ("?", "#"):
        if end in rest:
            rest = rest[:rest.find(end)]
    return None if "%" in rest else rest


def _into_memory(path: str) -> bool:
    """Whether `path` names a process's memory (/proc/PID/mem, map_files) by its last parts."""
    parts = path.rstrip("/").split("/")
    return parts[-1] == "mem" or "map_files" in parts

