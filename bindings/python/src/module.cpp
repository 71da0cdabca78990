// idforge._idforge: the Python face of the C ABI (idforge.h). Every call goes through
// libidforge.so; this file only turns C values into Python ones and statuses into the
// exception classes of the package.
//
// The hottest calls (uuid4/uuid7/ulid and their _str forms) are plain METH_NOARGS functions
// of the CPython API: pybind11's argument dispatch would cost more than the ID itself. The
// uuid.UUID they return is built the way uuid.UUID.__init__ builds one (the int and
// is_safe slots, set through object.__setattr__), without re-validating 16 bytes we made.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "idforge/idforge.h"

namespace py = pybind11;

namespace {

// ---- exceptions ------------------------------------------------------------------------

struct Exceptions {
  PyObject* base = nullptr;         // idforge.Error
  PyObject* parse = nullptr;        // ParseError(Error, ValueError)
  PyObject* layout = nullptr;       // LayoutError(Error, ValueError)
  PyObject* node = nullptr;         // NodeOutOfRangeError(Error, ValueError)
  PyObject* argument = nullptr;     // InvalidArgumentError(Error, ValueError)
  PyObject* option = nullptr;       // UnknownOptionError(InvalidArgumentError, TypeError)
  PyObject* mask_key = nullptr;     // MaskKeyError(InvalidArgumentError)
  PyObject* not_ours = nullptr;     // NotOursError(InvalidArgumentError)
  PyObject* clock = nullptr;        // ClockError(Error, RuntimeError)
  PyObject* exhausted = nullptr;    // ExhaustedError(Error, RuntimeError)
  PyObject* forked = nullptr;       // ForkedError(Error, RuntimeError)
  PyObject* lease = nullptr;        // LeaseError(Error, RuntimeError)
  PyObject* fenced = nullptr;       // FencedError(LeaseError)
  PyObject* unreachable = nullptr;  // StoreUnreachableError(LeaseError)
  PyObject* internal = nullptr;     // InternalError(Error, RuntimeError)
};
Exceptions g_exc;

PyObject* exception_for(idforge_status s) {
  switch (s) {
    case IDFORGE_E_PARSE_ERROR:
      return g_exc.parse;
    case IDFORGE_E_INVALID_LAYOUT:
    case IDFORGE_E_EPOCH_IN_FUTURE:
      return g_exc.layout;
    case IDFORGE_E_NODE_OUT_OF_RANGE:
      return g_exc.node;
    case IDFORGE_E_INVALID_ARGUMENT:
    case IDFORGE_E_BUFFER_TOO_SMALL:
    case IDFORGE_E_NOT_FOUND:
    case IDFORGE_E_ALREADY_EXISTS:
      return g_exc.argument;
    case IDFORGE_E_KEY_ERROR:
      return g_exc.mask_key;
    case IDFORGE_E_NOT_OURS:
      return g_exc.not_ours;
    case IDFORGE_E_CLOCK_MOVED_BACKWARDS:
    case IDFORGE_E_CLOCK_BEFORE_EPOCH:
      return g_exc.clock;
    case IDFORGE_E_TIME_EXHAUSTED:
    case IDFORGE_E_COUNTER_EXHAUSTED:
      return g_exc.exhausted;
    case IDFORGE_E_FORKED:
      return g_exc.forked;
    case IDFORGE_E_FENCED:
      return g_exc.fenced;
    case IDFORGE_E_LEASE_ERROR:
      return g_exc.lease;
    case IDFORGE_E_STORE_UNREACHABLE:
      return g_exc.unreachable;
    case IDFORGE_E_OUT_OF_MEMORY:
      return PyExc_MemoryError;
    default:
      return g_exc.internal;
  }
}

// Sets the Python error cls for a failed call: the message of the CLI and .code (the
// status name, e.g. "node_out_of_range"). Returns nullptr for C callers.
PyObject* set_error_as(PyObject* cls, idforge_status s) {
  PyObject* msg = PyUnicode_DecodeUTF8(
      idforge_last_error(), static_cast<Py_ssize_t>(std::strlen(idforge_last_error())), "replace");
  if (!msg) return nullptr;
  PyObject* exc = PyObject_CallOneArg(cls, msg);
  Py_DECREF(msg);
  if (!exc) return nullptr;
  if (cls != PyExc_MemoryError) {
    PyObject* code = PyUnicode_FromString(idforge_status_name(s));
    if (!code || PyObject_SetAttrString(exc, "code", code) < 0) {
      Py_XDECREF(code);
      Py_DECREF(exc);
      return nullptr;
    }
    Py_DECREF(code);
  }
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return nullptr;
}

// The same with the class the status maps to.
PyObject* set_error(idforge_status s) {
  return set_error_as(exception_for(s), s);
}

// For pybind11 code: raise the Python error for s.
[[noreturn]] void raise(idforge_status s) {
  set_error(s);
  throw py::error_already_set();
}

inline void check(idforge_status s) {
  if (s != IDFORGE_OK) raise(s);
}

// ---- arguments ----------------------------------------------------------------------------
// Arguments are taken as Python objects and checked here rather than by pybind11's casters:
// those accept bytes for str and True for 1, and answer a value out of range with a bare
// "incompatible function arguments" TypeError instead of an idforge error naming it.

// The longest piece of a caller's input this file echoes in a message: a 1 MB argument must
// not make a 1 MB error.
constexpr std::size_t kEchoLimit = 64;

// text for a message, quoted as every message of the library quotes user text
// (idforge_quote: controls and bytes that are not UTF-8 escaped, a NUL as \x00) and cut to
// its head and tail within kEchoLimit bytes.
std::string shown(const std::string& text) {
  std::string out(kEchoLimit + 1, '\0');
  std::size_t needed = 0;
  idforge_status s =
      idforge_quote(text.data(), text.size(), kEchoLimit, out.data(), out.size(), &needed);
  if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
    out.resize(needed);
    s = idforge_quote(text.data(), text.size(), kEchoLimit, out.data(), out.size(), &needed);
  }
  if (s != IDFORGE_OK) return "?";
  out.resize(needed - 1);
  return out;
}

// repr(v), bounded.
std::string shown(py::handle v) {
  PyObject* r = PyObject_Repr(v.ptr());
  if (!r) {  // an int beyond sys.get_int_max_str_digits(), say
    PyErr_Clear();
    if (PyLong_Check(v.ptr()))
      return "(an int of " + std::to_string(_PyLong_NumBits(v.ptr())) + " bits)";
    return "?";
  }
  Py_ssize_t n = 0;
  const char* u = PyUnicode_AsUTF8AndSize(r, &n);
  std::string text = u ? std::string(u, static_cast<std::size_t>(n)) : "?";
  if (!u) PyErr_Clear();
  Py_DECREF(r);
  return shown(text);
}

// Raises cls(message) with .code = code, as set_error does for the library's statuses.
[[noreturn]] void raise_with(PyObject* cls, const char* code, const std::string& message) {
  PyObject* msg =
      PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (!msg) throw py::error_already_set();
  PyObject* exc = PyObject_CallOneArg(cls, msg);
  Py_DECREF(msg);
  if (exc) {
    PyObject* c = PyUnicode_FromString(code);
    if (c && PyObject_SetAttrString(exc, "code", c) == 0) PyErr_SetObject(cls, exc);
    Py_XDECREF(c);
    Py_DECREF(exc);
  }
  throw py::error_already_set();
}

[[noreturn]] void raise_type(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw py::error_already_set();
}

// Refuses a keyword argument the call does not take. The library holds the one list of
// option names every face checks against (idforge_check_option), so the message is the
// Node addon's and the extensions' too: the call, the name, the options taken and the one
// meant ("did you mean 'lease_store'?" for leaseStore). The class is UnknownOptionError: an
// InvalidArgumentError (the status) and a TypeError, which Python raises for an unexpected
// keyword. Returns when the library takes name as an option of options.
void check_option(idforge_options options, const char* call, py::handle name) {
  Py_ssize_t n = 0;
  const char* u = PyUnicode_Check(name.ptr()) ? PyUnicode_AsUTF8AndSize(name.ptr(), &n) : nullptr;
  py::object spelt;  // a name with a lone surrogate, as \udcff: it has no UTF-8 form
  if (!u) {
    PyErr_Clear();
    PyObject* b = PyUnicode_Check(name.ptr())
                      ? PyUnicode_AsEncodedString(name.ptr(), "utf-8", "backslashreplace")
                      : nullptr;
    if (!b) throw py::error_already_set();
    spelt = py::reinterpret_steal<py::object>(b);
    u = PyBytes_AS_STRING(b);
    n = PyBytes_GET_SIZE(b);
  }
  const idforge_status s =
      idforge_check_option(options, IDFORGE_SNAKE_CASE, call, u, static_cast<std::size_t>(n));
  if (s == IDFORGE_OK) return;
  set_error_as(s == IDFORGE_E_INVALID_ARGUMENT ? g_exc.option : exception_for(s), s);
  throw py::error_already_set();
}

// Every key of a **kwargs tail: the ones a pybind11 signature does not name.
void check_options(idforge_options options, const char* call, const py::kwargs& extra) {
  for (auto item : extra) check_option(options, call, item.first);
  if (!extra.empty())  // a name the library takes that this call has no parameter for
    raise_with(
        g_exc.option, "invalid_argument",
        std::string(call) + ": option " + shown(extra.begin()->first) + " is not taken here");
}

// The UTF-8 of a str. A str holding a lone surrogate (from surrogateescape, say) has none:
// that is refused as the library's error of the kind given (ParseError for an ID,
// InvalidArgumentError for a setting), not as a bare UnicodeEncodeError or RuntimeError.
std::string utf8_of(py::handle v, const char* what, PyObject* kind, const char* code) {
  Py_ssize_t n = 0;
  const char* u = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
  if (!u) {
    PyErr_Clear();
    raise_with(kind, code,
               std::string(what) + " " + shown(v) +
                   " is not valid text: it holds a lone surrogate, which has no UTF-8 form");
  }
  return std::string(u, static_cast<std::size_t>(n));
}

// A str argument (bytes and the rest are a TypeError); a NUL byte is an InvalidArgumentError,
// since the C ABI takes C strings, which would silently end at it.
std::string text_arg(py::handle v, const char* what) {
  if (!PyUnicode_Check(v.ptr()))
    raise_type(std::string(what) + " must be a str, not " + Py_TYPE(v.ptr())->tp_name);
  std::string text = utf8_of(v, what, g_exc.argument, "invalid_argument");
  if (text.find('\0') != std::string::npos)
    raise_with(g_exc.argument, "invalid_argument",
               std::string(what) + " '" + shown(text) + "' contains a NUL byte: " + what +
                   " must not contain one");
  return text;
}

// An optional layout: None is the default ("twitter").
std::optional<std::string> layout_arg(py::handle v) {
  if (v.is_none()) return std::nullopt;
  return text_arg(v, "layout");
}

// An int argument (bool and the rest are a TypeError) in lo..hi; out of range raises cls
// naming the value and the rule.
template <class T>
T int_arg(py::handle v, const char* what, PyObject* cls, const char* code, T lo, T hi,
          const char* rule) {
  if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr()))
    raise_type(std::string(what) + " must be an int, not " + Py_TYPE(v.ptr())->tp_name);
  bool in_range = false;
  T value{};
  if constexpr (std::is_signed_v<T>) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
    in_range = !overflow && x >= lo && x <= hi;
    value = static_cast<T>(x);
  } else {
    if (_PyLong_Sign(v.ptr()) >= 0) {
      const unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
      if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
        PyErr_Clear();
      } else {
        in_range = x >= lo && x <= hi;
        value = static_cast<T>(x);
      }
    }
  }
  if (!in_range) raise_with(cls, code, std::string(what) + " " + shown(v) + ": " + rule);
  return value;
}

std::uint64_t u64_arg(py::handle v, const char* what) {
  return int_arg<std::uint64_t>(v, what, g_exc.argument, "invalid_argument", 0, UINT64_MAX,
                                "must be an integer in 0..2**64-1");
}

// A node ID: >= 0 and an int64 (the layout's node bits are checked by the library).
std::int64_t node_arg(py::handle v) {
  return int_arg<std::int64_t>(v, "node", g_exc.node, "node_out_of_range", 0, INT64_MAX,
                               "a node ID is an integer in 0..2**63-1");
}

[[noreturn]] void raise_closed() {
  raise_with(g_exc.argument, "closed", "Snowflake is closed");
}

PyObject* new_exception(PyObject* module, const char* name, PyObject* base1, PyObject* base2,
                        const char* doc) {
  PyObject* bases = base2 ? PyTuple_Pack(2, base1, base2) : PyTuple_Pack(1, base1);
  if (!bases) return nullptr;
  const std::string full = std::string("idforge.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases, nullptr);
  Py_DECREF(bases);
  if (!cls) return nullptr;
  Py_INCREF(cls);  // the module's reference; g_exc keeps the other for the process
  if (PyModule_AddObject(module, name, cls) < 0) {
    Py_DECREF(cls);
    return nullptr;
  }
  return cls;
}

// ---- uuid.UUID without its constructor ---------------------------------------------------

PyTypeObject* g_uuid_type = nullptr;  // uuid.UUID
PyObject* g_safe_unknown = nullptr;   // uuid.SafeUUID.unknown
PyObject* g_str_int = nullptr;        // "int"
PyObject* g_str_is_safe = nullptr;    // "is_safe"

PyObject* make_uuid(const std::uint8_t bytes[16]) {
  PyObject* value = _PyLong_FromByteArray(bytes, 16, /*little_endian=*/0, /*is_signed=*/0);
  if (!value) return nullptr;
  PyObject* obj = g_uuid_type->tp_alloc(g_uuid_type, 0);
  if (!obj) {
    Py_DECREF(value);
    return nullptr;
  }
  // What UUID.__init__ ends with: object.__setattr__(self, 'int', int) and 'is_safe'.
  const int failed = PyObject_GenericSetAttr(obj, g_str_int, value) < 0 ||
                     PyObject_GenericSetAttr(obj, g_str_is_safe, g_safe_unknown) < 0;
  Py_DECREF(value);
  if (failed) {
    Py_DECREF(obj);
    return nullptr;
  }
  return obj;
}

PyObject* uuid_text(const idforge_uuid& u) {
  char text[IDFORGE_UUID_TEXT_SIZE];
  if (const idforge_status s = idforge_uuid_format(&u, text, sizeof text)) return set_error(s);
  return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, text, 36);
}

PyObject* py_uuid4(PyObject*, PyObject*) {
  idforge_uuid u;
  if (const idforge_status s = idforge_make_uuid4(&u)) return set_error(s);
  return make_uuid(u.bytes);
}

PyObject* py_uuid4_str(PyObject*, PyObject*) {
  idforge_uuid u;
  if (const idforge_status s = idforge_make_uuid4(&u)) return set_error(s);
  return uuid_text(u);
}

PyObject* py_uuid7(PyObject*, PyObject*) {
  idforge_uuid u;
  if (const idforge_status s = idforge_make_uuid7(&u)) return set_error(s);
  return make_uuid(u.bytes);
}

PyObject* py_uuid7_str(PyObject*, PyObject*) {
  idforge_uuid u;
  if (const idforge_status s = idforge_make_uuid7(&u)) return set_error(s);
  return uuid_text(u);
}

PyObject* py_ulid(PyObject*, PyObject*) {
  idforge_ulid u;
  if (const idforge_status s = idforge_make_ulid(&u)) return set_error(s);
  char text[IDFORGE_ULID_TEXT_SIZE];
  if (const idforge_status s = idforge_ulid_format(&u, text, sizeof text)) return set_error(s);
  return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, text, 26);
}

PyObject* py_after_fork_in_child(PyObject*, PyObject*) {
  if (const idforge_status s = idforge_reseed()) return set_error(s);
  Py_RETURN_NONE;
}

PyMethodDef g_fast_functions[] = {
    {"uuid4", py_uuid4, METH_NOARGS, "uuid4() -> uuid.UUID: a version 4 UUID from the CSPRNG."},
    {"uuid4_str", py_uuid4_str, METH_NOARGS,
     "uuid4_str() -> str: a version 4 UUID in canonical text."},
    {"uuid7", py_uuid7, METH_NOARGS,
     "uuid7() -> uuid.UUID: the next UUIDv7 of the process (increasing across threads)."},
    {"uuid7_str", py_uuid7_str, METH_NOARGS,
     "uuid7_str() -> str: the next UUIDv7 of the process in canonical text."},
    {"ulid", py_ulid, METH_NOARGS, "ulid() -> str: the next monotonic ULID of the process."},
    {"_after_fork_in_child", py_after_fork_in_child, METH_NOARGS,
     "Reseeds the CSPRNG (registered with os.register_at_fork)."},
    {nullptr, nullptr, 0, nullptr}};

// ---- Snowflake ---------------------------------------------------------------------------

using Handle = std::shared_ptr<idforge_snowflake>;

// Runs f (a C call that touches no Python object) with the GIL released. Not an RAII guard
// on purpose: at interpreter exit CPython ends a daemon thread that takes the GIL back with
// pthread_exit, whose forced unwind must pass through here to pybind11's dispatcher (which
// rethrows abi::__forced_unwind). A destructor is noexcept, so an unwind starting in one
// calls std::terminate and aborts the whole process.
template <class F>
idforge_status without_gil(F&& f) {
  PyThreadState* state = PyEval_SaveThread();
  const idforge_status s = f();
  PyEval_RestoreThread(state);
  return s;
}

// A Python Snowflake. The handle is shared with calls that run without the GIL, so close()
// from another thread cannot free it under them.
class Snowflake {
 public:
  Snowflake(const py::object& layout_obj, const py::object& node_obj, const py::object& store_obj,
            const py::kwargs& extra) {
    // A misspelt option is refused before anything else: ignored, lease_store="..." spelt
    // leaseStore would leave the node unregistered.
    check_options(IDFORGE_OPTIONS_SNOWFLAKE, "Snowflake()", extra);
    const std::string layout = layout_arg(layout_obj).value_or("twitter");
    std::optional<std::int64_t> node;
    if (!node_obj.is_none()) node = node_arg(node_obj);
    std::optional<std::string> lease_store;
    if (!store_obj.is_none()) lease_store = text_arg(store_obj, "lease_store");
    idforge_snowflake* raw = nullptr;
    // Leasing may wait on the store (bounded by its timeout) or for the clock to pass a
    // stored mark: other Python threads run meanwhile.
    check(without_gil([&] {
      return idforge_snowflake_new(layout.c_str(), node ? *node : IDFORGE_NODE_ANY,
                                   lease_store ? lease_store->c_str() : nullptr, &raw);
    }));
    handle_ = Handle(raw, idforge_snowflake_free);
  }

  py::list next_batch(const py::object& n_obj) {
    const std::int64_t n =
        int_arg<std::int64_t>(n_obj, "next_batch: n", g_exc.argument, "invalid_argument", 0,
                              std::int64_t{1} << 26, "n must be an integer in 0..67108864");
    Handle h = handle_;
    live();
    std::vector<std::uint64_t> ids(static_cast<std::size_t>(n));
    std::size_t written = 0;
    check(without_gil(
        [&] { return idforge_snowflake_next_batch(h.get(), ids.data(), ids.size(), &written); }));
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(written));
    if (!list) throw py::error_already_set();
    for (std::size_t i = 0; i < written; ++i) {
      PyObject* v = PyLong_FromUnsignedLongLong(ids[i]);
      if (!v) {
        Py_DECREF(list);
        throw py::error_already_set();
      }
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), v);
    }
    return py::reinterpret_steal<py::list>(list);
  }

  std::uint64_t node() {
    std::uint64_t n;
    check(idforge_snowflake_node(live(), &n));
    return n;
  }

  std::string layout() {
    std::size_t needed = 0;
    std::string out(128, '\0');
    idforge_status s = idforge_snowflake_layout(live(), out.data(), out.size(), &needed);
    if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
      out.resize(needed);
      s = idforge_snowflake_layout(live(), out.data(), out.size(), &needed);
    }
    check(s);
    out.resize(needed - 1);
    return out;
  }

  void rebind(const py::object& node_obj) {
    std::optional<std::int64_t> node;
    if (!node_obj.is_none()) node = node_arg(node_obj);
    Handle h = handle_;
    live();
    check(without_gil(
        [&] { return idforge_snowflake_rebind(h.get(), node ? *node : IDFORGE_NODE_ANY); }));
  }

  // Releasing writes the high-water mark to the store (a file, or a round trip to Redis or
  // etcd, bounded by its timeout): without the GIL.
  void release() {
    Handle h = handle_;
    live();
    check(without_gil([&] { return idforge_snowflake_release(h.get()); }));
  }

  // Frees the handle (a leased one gives its node ID back) once no call is using it; the
  // release and, when this is the last user, the free run without the GIL.
  void close() {
    Handle h = std::move(handle_);
    if (!h) return;
    check(without_gil([&] {
      const idforge_status s = idforge_snowflake_release(h.get());
      h.reset();
      return s;
    }));
  }

  bool closed() const noexcept { return !handle_; }
  /// The handle for the fast next() below (empty once closed). The GIL is held; the copy
  /// keeps the handle alive while next() runs without it, whatever close() does meanwhile.
  Handle shared() const noexcept { return handle_; }

 private:
  idforge_snowflake* live() {
    if (!handle_) raise_closed();
    return handle_.get();
  }

 public:
  /// For `with`: entering a closed generator raises, as every other use does.
  void enter() { live(); }

 private:
  Handle handle_;
};

// Whether a Snowflake instance's __init__ ran (its holder exists). pybind11 hands a method
// of an instance made by Snowflake.__new__ alone a pointer to memory it allocates on the
// spot and never constructs, so the pointer says nothing: the holder's flag does.
bool constructed(PyObject* self) noexcept {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  return inst->simple_layout ? inst->simple_holder_constructed
                             : inst->get_value_and_holder().holder_constructed();
}

// self of a Snowflake method; an instance whose __init__ never ran is refused.
Snowflake& initialised(py::handle self) {
  if (!py::isinstance<Snowflake>(self))
    raise_with(g_exc.argument, "invalid_argument", "not a Snowflake");
  if (!constructed(self.ptr()))
    raise_with(g_exc.argument, "invalid_argument", "Snowflake is not initialised");
  return self.cast<Snowflake&>();
}

// Snowflake.next() as a METH_NOARGS method of the pybind11 type: pybind11's dispatch costs
// about as much as the ID itself. self is a pybind11 instance of Snowflake (the method is
// set on that type only); its C++ object sits in the simple value holder, nullptr until
// __init__ has run.
PyObject* py_snowflake_next(PyObject* self, PyObject*) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  void* value = !constructed(self)    ? nullptr
                : inst->simple_layout ? inst->simple_value_holder[0]
                                      : inst->get_value_and_holder().value_ptr();
  const Handle h = value ? static_cast<Snowflake*>(value)->shared() : nullptr;
  if (!h) {
    try {
      raise_with(g_exc.argument, value ? "closed" : "invalid_argument",
                 value ? "Snowflake is closed" : "Snowflake is not initialised");
    } catch (py::error_already_set& e) {
      e.restore();
    }
    return nullptr;
  }
  // next() may wait for the next tick or out a clock step back (up to a second): without
  // the GIL, so the process's other threads run meanwhile. Measured on one thread: 170 ns a
  // call against 127 ns holding it (the release, the retake and the handle's reference);
  // the price of never freezing every thread for a wait. The C ABI has no call that says
  // whether it would wait, which would let the common case keep the GIL.
  std::uint64_t id = 0;
  if (const idforge_status s = without_gil([&] { return idforge_snowflake_next(h.get(), &id); }))
    return set_error(s);
  return PyLong_FromUnsignedLongLong(id);
}

PyMethodDef g_snowflake_next = {
    "next", py_snowflake_next, METH_NOARGS,
    "next($self, /)\n--\n\nThe next ID (int), greater than every one before; waits for the next "
    "tick, when it must, without the GIL."};

// ---- decode and inspect -------------------------------------------------------------------

// An ID text with a NUL byte: a ParseError made here, since the library's message echoes the
// text as a C string, which would end at the NUL.
void refuse_nul(const std::string& text, const char* what) {
  if (text.find('\0') != std::string::npos)
    raise_with(g_exc.parse, "parse_error",
               std::string(what) + " '" + shown(text) + "': an ID contains no NUL byte");
}

std::string inspect_json(const py::object& text_obj, const py::object& layout_obj) {
  const std::optional<std::string> layout = layout_arg(layout_obj);
  if (!PyUnicode_Check(text_obj.ptr()))
    raise_type(std::string("inspect: text must be a str, not ") + Py_TYPE(text_obj.ptr())->tp_name);
  const std::string text = utf8_of(text_obj, "inspect: ID", g_exc.parse, "parse_error");
  refuse_nul(text, "inspect");
  std::size_t needed = 0;
  std::string out(1024, '\0');
  const char* l = layout ? layout->c_str() : nullptr;
  idforge_status s =
      idforge_inspect_json(text.data(), text.size(), l, out.data(), out.size(), &needed);
  if (s == IDFORGE_E_BUFFER_TOO_SMALL) {
    out.resize(needed);
    s = idforge_inspect_json(text.data(), text.size(), l, out.data(), out.size(), &needed);
  }
  check(s);
  out.resize(needed - 1);
  return out;
}

py::dict decompose(const py::object& id_obj, const py::object& layout_obj) {
  const std::uint64_t id = u64_arg(id_obj, "decompose: id");
  const std::optional<std::string> layout = layout_arg(layout_obj);
  idforge_snowflake_parts p;
  check(idforge_snowflake_decompose(layout ? layout->c_str() : nullptr, id, &p));
  py::dict d;
  d["tick"] = p.tick;
  d["unix_ms"] = p.unix_ms;
  d["datacenter"] = p.datacenter;
  d["worker"] = p.worker;
  d["node"] = p.node;
  d["sequence"] = p.sequence;
  return d;
}

std::uint64_t compose(const py::object& tick, const py::object& node, const py::object& sequence,
                      const py::object& layout_obj) {
  idforge_snowflake_parts p{};
  p.tick = u64_arg(tick, "compose: tick");
  p.node = u64_arg(node, "compose: node");
  p.sequence = u64_arg(sequence, "compose: sequence");
  const std::optional<std::string> layout = layout_arg(layout_obj);
  std::uint64_t id;
  check(idforge_snowflake_compose(layout ? layout->c_str() : nullptr, &p, &id));
  return id;
}

std::string id_text(const py::object& v, const char* what) {
  if (!PyUnicode_Check(v.ptr()))
    raise_type(std::string(what) + ": text must be a str, not " + Py_TYPE(v.ptr())->tp_name);
  std::string text = utf8_of(v, what, g_exc.parse, "parse_error");
  refuse_nul(text, what);
  return text;
}

py::object parse_uuid(const py::object& text_obj) {
  const std::string text = id_text(text_obj, "parse_uuid");
  idforge_uuid u;
  check(idforge_uuid_parse(text.data(), text.size(), &u));
  PyObject* o = make_uuid(u.bytes);
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

py::bytes parse_ulid(const py::object& text_obj) {
  const std::string text = id_text(text_obj, "parse_ulid");
  idforge_ulid u;
  check(idforge_ulid_parse(text.data(), text.size(), &u));
  return py::bytes(reinterpret_cast<const char*>(u.bytes), 16);
}

// ---- MaskKeyring ---------------------------------------------------------------------------
// Masking keys (idforge.h's idforge_mask_keyring). The handle is immutable, so a keyring may
// be used from any number of Python threads; mask() and unmask() keep the GIL (a call is a
// few hundred nanoseconds, less than releasing and taking it back would cost).

using KeyringHandle = std::shared_ptr<idforge_mask_keyring>;

// The modes and options of mask()/unmask(), as idforge.h numbers them.
struct MaskOptions {
  int mode = IDFORGE_MASK_AUTO;
  int form = -1;  // -1: not given; 0: public; 1: raw
  bool raw = false;
  idforge_public_alphabet alphabet = IDFORGE_BASE58;
  int key_id = IDFORGE_MASK_KEY_PRIMARY;
};

// The library's names for modes 0..2 (idforge_mask_mode_name).
const char* const kModeNames[] = {idforge_mask_mode_name(IDFORGE_MASK_U63),
                                  idforge_mask_mode_name(IDFORGE_MASK_U128),
                                  idforge_mask_mode_name(IDFORGE_MASK_V7)};

// A str option whose value is one of names (its index), else InvalidArgumentError naming it.
int choice_arg(py::handle v, const char* what, std::initializer_list<const char*> names,
               const char* rule) {
  if (!PyUnicode_Check(v.ptr()))
    raise_type(std::string(what) + " must be a str, not " + Py_TYPE(v.ptr())->tp_name);
  int i = 0;
  for (const char* n : names) {
    if (PyUnicode_CompareWithASCIIString(v.ptr(), n) == 0) return i;
    ++i;
  }
  raise_with(g_exc.argument, "invalid_argument",
             std::string(what) + " " + shown(v) + ": expected " + rule);
}

// A key ID (None, the primary, is the caller's to handle).
int key_id_arg(py::handle v) {
  return int_arg<int>(v, "key_id", g_exc.argument, "invalid_argument", 0, INT32_MAX,
                      "a key ID is an integer in 0..57");
}

// A mode or alphabet option: a str whose UTF-8 the library reads (idforge_mask_mode_parse,
// idforge_public_alphabet_parse), so Python takes the names every face takes.
std::string name_arg(py::handle v, const char* what) {
  if (!PyUnicode_Check(v.ptr()))
    raise_type(std::string(what) + " must be a str, not " + Py_TYPE(v.ptr())->tp_name);
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
  if (!p) throw py::error_already_set();  // a lone surrogate: Python's own UnicodeEncodeError
  return std::string(p, static_cast<std::size_t>(n));
}

int mode_arg(py::handle v) {
  const std::string name = name_arg(v, "mode");
  idforge_mask_mode m = IDFORGE_MASK_AUTO;
  check(idforge_mask_mode_parse(name.data(), name.size(), 1, &m));
  return m;
}

idforge_public_alphabet alphabet_arg(py::handle v) {
  const std::string name = name_arg(v, "alphabet");
  idforge_public_alphabet a = IDFORGE_BASE58;
  check(idforge_public_alphabet_parse(name.data(), name.size(), &a));
  return a;
}

// The keyword arguments after the value (vectorcall layout: values follow the positional
// ones, names in kwnames). Any other name is refused through the library's list of mask
// options (check_option), before the value is looked at.
void read_mask_options(const char* fn, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                       MaskOptions& o) {
  if (nargs != 1)
    raise_type(std::string(fn) + "() takes one positional argument, the value (" +
               std::to_string(nargs) + " given); the options are keywords");
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  static constexpr const char* kTaken[] = {"mode", "form", "alphabet", "key_id"};
  // The names first, every one, then the values: a misspelt option is named even when
  // another option's value is wrong too.
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    bool taken = false;
    for (const char* t : kTaken) taken = taken || PyUnicode_CompareWithASCIIString(name, t) == 0;
    if (taken) continue;
    const std::string call = std::string(fn) + "()";
    check_option(IDFORGE_OPTIONS_MASK, call.c_str(), name);
    raise_with(g_exc.option, "invalid_argument",  // a mask option this file lacks: a bug
               call + ": option " + shown(name) + " is not taken here");
  }
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    py::handle v = args[nargs + i];
    if (PyUnicode_CompareWithASCIIString(name, "mode") == 0) {
      o.mode = mode_arg(v);
    } else if (PyUnicode_CompareWithASCIIString(name, "form") == 0) {
      o.form = choice_arg(v, "form", {"public", "raw"}, "'public' or 'raw'");
      o.raw = o.form == 1;
    } else if (PyUnicode_CompareWithASCIIString(name, "alphabet") == 0) {
      o.alphabet = alphabet_arg(v);
    } else if (PyUnicode_CompareWithASCIIString(name, "key_id") == 0) {
      if (!v.is_none()) o.key_id = key_id_arg(v);
    }
  }
}

bool is_uuid(py::handle v) {
  return PyObject_TypeCheck(v.ptr(), g_uuid_type);
}

// The 16 bytes of a uuid.UUID (its int, big-endian).
idforge_uuid uuid_bytes(py::handle v) {
  PyObject* i = PyObject_GetAttr(v.ptr(), g_str_int);
  if (!i) throw py::error_already_set();
  idforge_uuid u;
  const int r = PyLong_Check(i) ? _PyLong_AsByteArray(reinterpret_cast<PyLongObject*>(i), u.bytes,
                                                      16, /*little_endian=*/0, /*is_signed=*/0
#if PY_VERSION_HEX >= 0x030D0000
                                                      ,
                                                      /*with_exceptions=*/1
#endif
                                                      )
                                : -1;
  Py_DECREF(i);
  if (r < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "uuid.UUID without an int");
    throw py::error_already_set();
  }
  return u;
}

py::object uuid_object(const idforge_uuid& u) {
  PyObject* o = make_uuid(u.bytes);
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// A u63 value: an int in 1..2**63-1 (bool and the rest are a TypeError).
std::uint64_t u63_arg(py::handle v, const char* fn) {
  return int_arg<std::uint64_t>(v, (std::string(fn) + ": value").c_str(), g_exc.argument,
                                "invalid_argument", 1, (std::uint64_t{1} << 63) - 1,
                                "a u63 value is an integer in 1..2**63-1");
}

// An int goes with mode auto or u63 only, a uuid.UUID with auto, u128 or v7.
void check_mode_for(const char* fn, py::handle v, const MaskOptions& o, bool is_int) {
  if (is_int ? (o.mode == IDFORGE_MASK_AUTO || o.mode == IDFORGE_MASK_U63)
             : o.mode != IDFORGE_MASK_U63)
    return;
  raise_with(g_exc.argument, "invalid_argument",
             std::string(fn) + ": mode '" + kModeNames[o.mode] + "' takes " +
                 (is_int ? "a uuid.UUID" : "an int") + ", not " + shown(v));
}

class MaskKeyring {
 public:
  explicit MaskKeyring(idforge_mask_keyring* raw) : h_(raw, idforge_mask_keyring_free) {}

  static MaskKeyring from_file(const py::object& path) {
    // os.fsencode: str (surrogate-escaped bytes included), bytes or os.PathLike, as open() takes.
    py::object encoded = py::module_::import("os").attr("fsencode")(path);
    const std::string p = encoded.cast<std::string>();
    if (p.find('\0') != std::string::npos)
      raise_with(g_exc.argument, "invalid_argument",
                 "path '" + shown(p) + "' contains a NUL byte: a path must not contain one");
    idforge_mask_keyring* raw = nullptr;
    check(idforge_mask_keyring_from_file(p.c_str(), &raw));
    return MaskKeyring(raw);
  }

  static MaskKeyring from_environment() {
    idforge_mask_keyring* raw = nullptr;
    check(idforge_mask_keyring_from_environment(&raw));
    return MaskKeyring(raw);
  }

  static MaskKeyring from_text(const py::object& text_obj) {
    if (!PyUnicode_Check(text_obj.ptr()))
      raise_type(std::string("from_text: text must be a str, not ") +
                 Py_TYPE(text_obj.ptr())->tp_name);
    Py_ssize_t n = 0;
    const char* u = PyUnicode_AsUTF8AndSize(text_obj.ptr(), &n);
    if (!u) throw py::error_already_set();
    idforge_mask_keyring* raw = nullptr;
    check(idforge_mask_keyring_from_text(u, static_cast<std::size_t>(n), &raw));
    return MaskKeyring(raw);
  }

  std::vector<unsigned> key_ids() const {
    std::vector<unsigned> ids(64);
    std::size_t count = 0;
    check(idforge_mask_keyring_ids(h_.get(), ids.data(), ids.size(), &count));
    ids.resize(count);
    return ids;
  }

  // read_public_id(text, *, mode, alphabet, key_id): mode and key_id, when given, must match
  // the public ID's, as for unmask().
  py::dict read_public_id(const py::object& text_obj, const py::object& mode_obj,
                          const py::object& alphabet_obj, const py::object& key_id_obj,
                          const py::kwargs& extra) const {
    check_options(IDFORGE_OPTIONS_READ_PUBLIC_ID, "read_public_id()", extra);
    const int mode = mode_arg(mode_obj);
    const auto alphabet = alphabet_arg(alphabet_obj);
    const int key_id = key_id_obj.is_none() ? IDFORGE_MASK_KEY_PRIMARY : key_id_arg(key_id_obj);
    const idforge_public_id info = read_public(
        text_obj, alphabet, static_cast<idforge_mask_mode>(mode), key_id, "read_public_id");
    py::dict d;
    d["mode"] = kModeNames[info.mode];
    d["key_id"] = info.key_id;
    d["value"] = public_value(info);
    return d;
  }

  // mask(value, *, mode, form, alphabet, key_id)
  PyObject* mask(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const {
    MaskOptions o;
    read_mask_options("mask", args, nargs, kwnames, o);
    py::handle v = args[0];
    const bool is_int = PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
    if (!is_int && !is_uuid(v))
      raise_type(std::string("mask() takes an int or a uuid.UUID, not ") +
                 Py_TYPE(v.ptr())->tp_name + " (for text, pass int(text) or uuid.UUID(text))");
    check_mode_for("mask", v, o, is_int);
    if (is_int) {
      const std::uint64_t value = u63_arg(v, "mask");
      if (o.raw) {
        std::uint64_t m;
        check(idforge_mask_u63(h_.get(), o.key_id, value, &m));
        return PyLong_FromUnsignedLongLong(m);
      }
      char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
      check(idforge_mask_public_u63(h_.get(), o.key_id, value, o.alphabet, text, sizeof text));
      return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, text, 16);
    }
    const idforge_uuid u = uuid_bytes(v);
    const auto mode = static_cast<idforge_mask_mode>(o.mode);
    if (o.raw) {
      idforge_uuid m;
      check(idforge_mask_uuid(h_.get(), o.key_id, mode, &u, &m));
      return uuid_object(m).release().ptr();
    }
    char text[IDFORGE_PUBLIC_ID_TEXT_SIZE];
    check(idforge_mask_public_uuid(h_.get(), o.key_id, mode, &u, o.alphabet, text, sizeof text));
    return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, text,
                                     static_cast<Py_ssize_t>(std::strlen(text)));
  }

  // unmask(value, *, mode, form, alphabet, key_id): a str is a public ID, an int or a
  // uuid.UUID a raw masked value; form, when given, says which the caller means.
  PyObject* unmask(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) const {
    MaskOptions o;
    read_mask_options("unmask", args, nargs, kwnames, o);
    py::handle v = args[0];
    const bool is_text = PyUnicode_Check(v.ptr());
    if (o.form == 0 && !is_text)
      raise_type(std::string("unmask(): form='public' reads a public ID, a str, not ") +
                 Py_TYPE(v.ptr())->tp_name);
    if (o.form == 1 && is_text)
      raise_type(
          "unmask(): form='raw' takes a masked int or uuid.UUID, not str (a str is a "
          "public ID: form='public')");
    if (is_text) {
      const idforge_public_id info =
          read_public(v, o.alphabet, static_cast<idforge_mask_mode>(o.mode), o.key_id, "unmask");
      return public_value(info).release().ptr();
    }
    const bool is_int = PyLong_Check(v.ptr()) && !PyBool_Check(v.ptr());
    if (!is_int && !is_uuid(v))
      raise_type(std::string("unmask() takes a public ID (str), or a raw masked int or uuid.UUID, "
                             "not ") +
                 Py_TYPE(v.ptr())->tp_name);
    check_mode_for("unmask", v, o, is_int);
    if (is_int) {
      std::uint64_t back;
      check(idforge_unmask_u63(h_.get(), o.key_id, u63_arg(v, "unmask"), &back));
      return PyLong_FromUnsignedLongLong(back);
    }
    const idforge_uuid m = uuid_bytes(v);
    idforge_uuid back;
    check(
        idforge_unmask_uuid(h_.get(), o.key_id, static_cast<idforge_mask_mode>(o.mode), &m, &back));
    return uuid_object(back).release().ptr();
  }

 private:
  idforge_public_id read_public(py::handle text_obj, idforge_public_alphabet alphabet,
                                idforge_mask_mode expect_mode, int expect_key_id,
                                const char* fn) const {
    if (!PyUnicode_Check(text_obj.ptr()))
      raise_type(std::string(fn) + ": a public ID is a str, not " +
                 Py_TYPE(text_obj.ptr())->tp_name);
    Py_ssize_t n = 0;
    const char* u = PyUnicode_AsUTF8AndSize(text_obj.ptr(), &n);
    if (!u) {  // a lone surrogate (from surrogateescape, say) has no UTF-8 form
      PyErr_Clear();
      raise_with(g_exc.parse, "parse_error",
                 std::string(fn) + ": public ID " + shown(text_obj) +
                     " is not valid text (it holds a lone surrogate); a public ID is base58 or "
                     "base62 characters");
    }
    idforge_public_id info;
    check(idforge_unmask_public(h_.get(), u, static_cast<std::size_t>(n), alphabet, expect_mode,
                                expect_key_id, &info));
    return info;
  }

  static py::object public_value(const idforge_public_id& info) {
    if (info.mode == IDFORGE_MASK_U63)
      return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(info.value));
    return uuid_object(info.uuid);
  }

  KeyringHandle h_;
};

// The instance's MaskKeyring (set by a factory; nullptr for an object made another way).
const MaskKeyring* keyring_of(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  void* value =
      inst->simple_layout ? inst->simple_value_holder[0] : inst->get_value_and_holder().value_ptr();
  if (!value)
    raise_with(g_exc.argument, "invalid_argument",
               "MaskKeyring is not initialised: make one with MaskKeyring.from_file(), "
               "from_environment() or from_text()");
  return static_cast<const MaskKeyring*>(value);
}

// mask() and unmask() as vectorcall methods of the pybind11 type, as Snowflake.next():
// pybind11's keyword dispatch costs more than the masking itself.
template <PyObject* (MaskKeyring::*Method)(PyObject* const*, Py_ssize_t, PyObject*) const>
PyObject* keyring_call(PyObject* self, PyObject* const* args, Py_ssize_t nargsf,
                       PyObject* kwnames) {
  try {
    return (keyring_of(self)->*Method)(args, PyVectorcall_NARGS(nargsf), kwnames);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(g_exc.internal, e.what());
  }
  return nullptr;
}

PyMethodDef g_keyring_methods[] = {
    {"mask",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(keyring_call<&MaskKeyring::mask>)),
     METH_FASTCALL | METH_KEYWORDS,
     "mask($self, value, /, *, mode='auto', form='public', alphabet='base58', key_id=None)\n--\n\n"
     "Returns str | int | uuid.UUID. Masks an int (mode u63, 1..2**63-1) or a uuid.UUID (u128; v7 "
     "for a UUIDv7 "
     "under 'auto') with the primary key, or the key key_id names. form='public' gives the "
     "short text ID; form='raw' the masked int or uuid.UUID."},
    {"unmask",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)()>(keyring_call<&MaskKeyring::unmask>)),
     METH_FASTCALL | METH_KEYWORDS,
     "unmask($self, value, /, *, mode='auto', form=None, alphabet='base58', key_id=None)\n--\n\n"
     "Returns int | uuid.UUID. A public ID (str) back to its int or uuid.UUID with the key it "
     "names (mode and key_id, when given, must match it); a raw masked int or uuid.UUID back "
     "with the primary key or key_id. form ('public' or 'raw'), when given, says which the "
     "value must be."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PYBIND11_MODULE(_idforge, m) {
  m.doc() = "idforge's generators through libidforge.so (the C ABI); use the idforge package.";
  m.attr("__version__") = idforge_version();

  py::module_ uuid = py::module_::import("uuid");
  g_uuid_type = reinterpret_cast<PyTypeObject*>(py::object(uuid.attr("UUID")).release().ptr());
  g_safe_unknown = py::object(uuid.attr("SafeUUID").attr("unknown")).release().ptr();
  g_str_int = PyUnicode_InternFromString("int");
  g_str_is_safe = PyUnicode_InternFromString("is_safe");
  if (!g_str_int || !g_str_is_safe) throw py::error_already_set();

  PyObject* mod = m.ptr();
  auto add = [&](PyObject*& slot, const char* name, PyObject* b1, PyObject* b2, const char* doc) {
    slot = new_exception(mod, name, b1, b2, doc);
    if (!slot) throw py::error_already_set();
  };
  add(g_exc.base, "Error", PyExc_Exception, nullptr,
      "Base of every idforge error; .code names the status (e.g. 'node_out_of_range').");
  add(g_exc.parse, "ParseError", g_exc.base, PyExc_ValueError,
      "Text that is not a valid ID, number or layout spec (the message gives the position).");
  add(g_exc.layout, "LayoutError", g_exc.base, PyExc_ValueError,
      "A layout whose fields do not add up, or whose epoch lies in the future.");
  add(g_exc.node, "NodeOutOfRangeError", g_exc.base, PyExc_ValueError,
      "A node ID that does not fit the layout's node bits.");
  add(g_exc.argument, "InvalidArgumentError", g_exc.base, PyExc_ValueError,
      "An argument that breaks a stated rule.");
  add(g_exc.option, "UnknownOptionError", g_exc.argument, PyExc_TypeError,
      "A keyword the call does not take (the message names it, the options taken and the one "
      "meant); a TypeError too, as Python's own unexpected-keyword error is.");
  add(g_exc.mask_key, "MaskKeyError", g_exc.argument, nullptr,
      "A masking key missing, malformed or not in the keyring (the message never shows a "
      "secret).");
  add(g_exc.not_ours, "NotOursError", g_exc.argument, nullptr,
      "A public ID whose keyed check does not match: made with another secret, or forged.");
  add(g_exc.clock, "ClockError", g_exc.base, PyExc_RuntimeError,
      "The clock is behind the last issued ID beyond the wait bound, or before the epoch.");
  add(g_exc.exhausted, "ExhaustedError", g_exc.base, PyExc_RuntimeError,
      "A time field or a counter ran out.");
  add(g_exc.forked, "ForkedError", g_exc.base, PyExc_RuntimeError,
      "A Snowflake used in a forked child before rebind() gave it a node of its own.");
  add(g_exc.lease, "LeaseError", g_exc.base, PyExc_RuntimeError,
      "A node-ID lease could not be acquired, renewed or kept.");
  add(g_exc.fenced, "FencedError", g_exc.lease, nullptr,
      "Lease renewals are failing: issuing is paused until one succeeds.");
  add(g_exc.unreachable, "StoreUnreachableError", g_exc.lease, nullptr,
      "The lease store did not answer within its timeout.");
  add(g_exc.internal, "InternalError", g_exc.base, PyExc_RuntimeError,
      "An unexpected failure inside the library.");

  if (PyModule_AddFunctions(mod, g_fast_functions) < 0) throw py::error_already_set();

  // Every method takes self as a pointer and checks it: Snowflake.__new__(Snowflake) makes
  // an instance whose __init__ never ran, and pybind11 then hands a method a null self
  // (calling a member function on it crashed the interpreter).
  py::class_<Snowflake> snowflake(m, "Snowflake");
  snowflake
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::kwargs&>(),
           py::arg("layout") = "twitter", py::kw_only(), py::arg("node") = py::none(),
           py::arg("lease_store") = py::none(),
           "Snowflake(layout='twitter', *, node=None, lease_store=None): node alone is a fixed "
           "node, lease_store alone leases any free node, both register exactly that node. Any "
           "other keyword is refused (UnknownOptionError naming it and the options taken).")
      .def(
          "next_batch",
          [](py::handle self, const py::object& n) { return initialised(self).next_batch(n); },
          py::arg("n"))
      .def_property_readonly("node", [](py::handle self) { return initialised(self).node(); })
      .def_property_readonly("layout", [](py::handle self) { return initialised(self).layout(); })
      .def_property_readonly("closed",
                             [](py::handle self) {
                               return py::isinstance<Snowflake>(self) && !constructed(self.ptr())
                                          ? true
                                          : initialised(self).closed();
                             })
      .def(
          "rebind", [](py::handle self, const py::object& node) { initialised(self).rebind(node); },
          py::arg("node") = py::none())
      .def("release", [](py::handle self) { initialised(self).release(); })
      .def("close", [](py::handle self) { initialised(self).close(); })
      .def("__enter__",
           [](py::object self) {
             initialised(self).enter();
             return self;
           })
      .def("__exit__", [](py::handle self, py::args) { initialised(self).close(); });
  {
    auto* type = reinterpret_cast<PyTypeObject*>(snowflake.ptr());
    PyObject* next = PyDescr_NewMethod(type, &g_snowflake_next);
    if (!next || PyObject_SetAttrString(snowflake.ptr(), "next", next) < 0) {
      Py_XDECREF(next);
      throw py::error_already_set();
    }
    Py_DECREF(next);
  }

  py::class_<MaskKeyring> keyring(m, "MaskKeyring");
  keyring
      .def_static("from_file", &MaskKeyring::from_file, py::arg("path"),
                  "The keyring in a file of ID:SECRET entries (str, bytes or os.PathLike).")
      .def_static(
          "from_environment", &MaskKeyring::from_environment,
          "The keyring of IDFORGE_MASK_KEY_FILE (a file), else IDFORGE_MASK_KEYS (entries).")
      .def_static("from_text", &MaskKeyring::from_text, py::arg("text"),
                  "A keyring from entries in a str: for tests; real keys belong in a file or "
                  "the environment, not in code.")
      .def_property_readonly("key_ids", &MaskKeyring::key_ids,
                             "The key IDs, the primary (the one that masks) first.")
      .def_property_readonly(
          "primary_key_id", [](const MaskKeyring& k) { return k.key_ids().front(); },
          "The ID of the key that masks.")
      .def("read_public_id", &MaskKeyring::read_public_id, py::arg("text"), py::kw_only(),
           py::arg("mode") = "auto", py::arg("alphabet") = "base58", py::arg("key_id") = py::none(),
           "What a public ID holds: {'mode': 'u63'|'u128'|'v7', 'key_id': int, 'value': int | "
           "uuid.UUID}. mode and key_id, when given, must match the ID's; any other keyword is "
           "refused (UnknownOptionError).")
      .def("__repr__", [](const MaskKeyring& k) {
        std::string ids;
        for (unsigned id : k.key_ids()) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
        return "<idforge.MaskKeyring key IDs [" + ids + "]>";
      });
  for (PyMethodDef* d = g_keyring_methods; d->ml_name; ++d) {
    auto* type = reinterpret_cast<PyTypeObject*>(keyring.ptr());
    PyObject* method = PyDescr_NewMethod(type, d);
    if (!method || PyObject_SetAttrString(keyring.ptr(), d->ml_name, method) < 0) {
      Py_XDECREF(method);
      throw py::error_already_set();
    }
    Py_DECREF(method);
  }
  m.def(
      "new_mask_key",
      [](const py::object& id_obj) {
        const auto id =
            int_arg<unsigned>(id_obj, "new_mask_key: key_id", g_exc.argument, "invalid_argument", 0,
                              57, "a key ID is an integer in 0..57");
        char line[IDFORGE_MASK_KEY_LINE_SIZE];
        check(idforge_mask_new_key(id, line, sizeof line));
        std::string out(line);
        volatile char* p = line;  // the line is a secret: leave no copy on the stack
        for (std::size_t i = 0; i < sizeof line; ++i) p[i] = 0;
        return out;
      },
      py::arg("key_id"),
      "A fresh keyring line 'ID:64 hex digits' from the OS CSPRNG (a secret: store it in a "
      "0600 file).");

  m.def("_inspect_json", &inspect_json, py::arg("text"), py::arg("layout") = py::none());
  m.def("decompose", &decompose, py::arg("id"), py::arg("layout") = py::none());
  m.def("compose", &compose, py::arg("tick"), py::arg("node"), py::arg("sequence"),
        py::arg("layout") = py::none());
  m.def("parse_uuid", &parse_uuid, py::arg("text"));
  m.def("parse_ulid", &parse_ulid, py::arg("text"));
}
