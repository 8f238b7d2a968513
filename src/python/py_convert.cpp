#include "python/py_convert.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <utility>

#include "core/huge_pages.hpp"

namespace tok::python {

std::string_view utf8_view(py::handle text) {
  if (PyBytes_Check(text.ptr())) {
    char* data = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(text.ptr(), &data, &size) != 0) throw py::error_already_set();
    return {data, static_cast<std::size_t>(size)};
  }
  if (!PyUnicode_Check(text.ptr())) {
    throw py::type_error("expected str, got " + std::string(py::str(py::type::of(text))));
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (!data) throw py::error_already_set();
  return {data, static_cast<std::size_t>(size)};
}

namespace {

// A list of millions of ids holds only tens of thousands of distinct values,
// and allocating an int object per element was a quarter of an
// encode_ordinary call. So one int object per id seen is kept for the life of
// the process (as CPython keeps its small ints) and the list takes new
// references to it. Ids past kCachedIds (no vocabulary has that many) are
// allocated as before. Only called with the GIL held, which guards the table.
constexpr std::size_t kCachedIds = std::size_t{1} << 20;

// The table, calloc'd whole: its pages are mapped as ids first use them.
PyObject** id_table() {
  static PyObject** table = static_cast<PyObject**>(std::calloc(kCachedIds, sizeof(PyObject*)));
  return table;
}

PyObject* id_object(PyObject** cache, bpe::TokenId id) {
  std::size_t i = id;
  if (i >= kCachedIds || !cache) return PyLong_FromUnsignedLong(id);
  PyObject*& v = cache[i];
  if (!v) {
    v = PyLong_FromUnsignedLong(id);
    if (!v) return nullptr;
  }
  Py_INCREF(v);
  return v;
}

// items[i] = a new reference to ids[i]'s int for each id: how many were
// set (fewer than ids.size() only when allocating an int failed). Tens of
// thousands of objects spread over the heap miss the cache; fetched one
// after another they were an eighth of a long encode_ordinary call. So the
// table's slot is fetched kSlotAhead ids ahead, and the object whose count
// is incremented kObjectAhead ids ahead, once its slot has arrived: a miss
// to memory lasts as long as setting a few dozen items, and distances of
// 16 and 8 left the loop waiting on both (0.90x the call's time at 256 and
// 80 on a 25 MB text).
std::size_t set_items(PyObject** items, std::span<const bpe::TokenId> ids) {
  constexpr std::size_t kSlotAhead = 256, kObjectAhead = 80;
  PyObject** cache = id_table();
  std::size_t n = ids.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (cache) {
      if (i + kSlotAhead < n && ids[i + kSlotAhead] < kCachedIds) {
        __builtin_prefetch(cache + ids[i + kSlotAhead]);
      }
      if (i + kObjectAhead < n && ids[i + kObjectAhead] < kCachedIds) {
        if (PyObject* ahead = cache[ids[i + kObjectAhead]]) __builtin_prefetch(ahead, 1);
      }
    }
    PyObject* v = id_object(cache, ids[i]);
    if (!v) return i;
    items[i] = v;
  }
  return n;
}

}  // namespace

void reserve_ids(std::vector<bpe::TokenId>& ids, std::size_t bytes) {
  if (bytes < kLargeBuffer) return;
  ids.reserve(ids.size() + bytes + 2);
  advise_huge_pages(ids.data() + ids.size(), (ids.capacity() - ids.size()) * sizeof(bpe::TokenId));
}

py::list to_list(std::span<const bpe::TokenId> ids) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(ids.size()));
  if (!list) throw py::error_already_set();
  // PyList_New callocs the items: a large block is a fresh mapping that
  // calloc leaves untouched, so the advice comes before the first fault.
  if (ids.size() * sizeof(PyObject*) >= kLargeBuffer) {
    advise_huge_pages(reinterpret_cast<PyListObject*>(list)->ob_item,
                      ids.size() * sizeof(PyObject*));
  }
  // On failure the list holds nulls from there, which it skips when freed.
  if (set_items(reinterpret_cast<PyListObject*>(list)->ob_item, ids) < ids.size()) {
    Py_DECREF(list);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::list>(list);
}

IdList::IdList(std::size_t expected) : list_(PyList_New(0)) {
  if (!list_) throw py::error_already_set();
  reserve(std::max<std::size_t>(expected, 16));
}

IdList::~IdList() { Py_XDECREF(list_); }

// The item array is the list's own (CPython frees it with PyMem_Free, as
// list_resize would have allocated it): only its size and room are set
// here, as list_resize sets them.
void IdList::reserve(std::size_t n) {
  auto* l = reinterpret_cast<PyListObject*>(list_);
  if (n <= static_cast<std::size_t>(l->allocated)) return;
  if (n > static_cast<std::size_t>(PY_SSIZE_T_MAX) / sizeof(PyObject*)) throw std::bad_alloc();
  // A large array is a mapping of its own, which realloc moves and shrinks
  // without copying (mremap); advised before its pages are first written.
  auto* items = static_cast<PyObject**>(PyMem_Realloc(l->ob_item, n * sizeof(PyObject*)));
  if (!items) throw std::bad_alloc();
  if (n * sizeof(PyObject*) >= kLargeBuffer) {
    advise_huge_pages(items + Py_SIZE(l), (n - Py_SIZE(l)) * sizeof(PyObject*));
  }
  l->ob_item = items;
  l->allocated = static_cast<Py_ssize_t>(n);
}

void IdList::append(std::span<const bpe::TokenId> ids) {
  auto* l = reinterpret_cast<PyListObject*>(list_);
  std::size_t size = static_cast<std::size_t>(Py_SIZE(l));
  if (size + ids.size() > static_cast<std::size_t>(l->allocated)) {
    reserve(std::max(size + ids.size(), static_cast<std::size_t>(l->allocated) / 2 * 3));
  }
  std::size_t set = set_items(l->ob_item + size, ids);
  Py_SET_SIZE(l, static_cast<Py_ssize_t>(size + set));  // on failure, what it holds
  if (set < ids.size()) throw py::error_already_set();
}

py::list IdList::finish() {
  auto* l = reinterpret_cast<PyListObject*>(list_);
  if (Py_SIZE(l) < l->allocated) {
    std::size_t n = std::max<std::size_t>(static_cast<std::size_t>(Py_SIZE(l)), 1);
    if (auto* items = static_cast<PyObject**>(PyMem_Realloc(l->ob_item, n * sizeof(PyObject*)))) {
      l->ob_item = items;
      l->allocated = static_cast<Py_ssize_t>(n);
    }
  }
  return py::reinterpret_steal<py::list>(std::exchange(list_, nullptr));
}

std::vector<bpe::TokenId> to_ids(py::handle seq) {
  std::vector<bpe::TokenId> out;
  auto push = [&out](PyObject* item) {
    // NumPy integers are not int subclasses: go through __index__.
    py::object index;
    if (!PyLong_Check(item)) {
      index = py::reinterpret_steal<py::object>(PyNumber_Index(item));
      if (!index) throw py::error_already_set();
      item = index.ptr();
    }
    unsigned long v = PyLong_AsUnsignedLong(item);
    if (v == static_cast<unsigned long>(-1) && PyErr_Occurred()) throw py::error_already_set();
    if (v > UINT32_MAX) throw py::value_error("token id out of range: " + std::to_string(v));
    out.push_back(static_cast<bpe::TokenId>(v));
  };
  if (PyList_Check(seq.ptr())) {
    Py_ssize_t n = PyList_GET_SIZE(seq.ptr());
    out.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) push(PyList_GET_ITEM(seq.ptr(), i));
    return out;
  }
  for (py::handle item : py::iter(seq)) push(item.ptr());
  return out;
}

namespace {

py::object utf8_or_replaced(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

}  // namespace

py::object to_python(const nlohmann::ordered_json& j) {
  using Type = nlohmann::ordered_json::value_t;
  switch (j.type()) {
    case Type::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it)
        d[utf8_or_replaced(it.key())] = to_python(it.value());
      return d;
    }
    case Type::array: {
      py::list l(j.size());
      for (std::size_t i = 0; i < j.size(); ++i) l[i] = to_python(j[i]);
      return l;
    }
    case Type::string: return utf8_or_replaced(j.get_ref<const std::string&>());
    case Type::boolean: return py::bool_(j.get<bool>());
    case Type::number_integer: return py::int_(j.get<std::int64_t>());
    case Type::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case Type::number_float: return py::float_(j.get<double>());
    default:  // null, and the binary and discarded values JSON text never holds
      return py::none();
  }
}

}  // namespace tok::python
