//===- module.cpp - tsc._tsc: the runtime's C API for Python --------------===//
//
// Model and Session over runtime.hpp. Tensors cross through Python's buffer
// protocol, not numpy's C API (so one build works with numpy 1 and 2): an
// input is any C-contiguous buffer of the input's element size, wrapped
// without a copy for the run; an output is a tsc._tsc.Tensor exposing the
// runtime's memory as a buffer (numpy.asarray views it, no copy), holding
// the tensor's reference. Types with no buffer format (bf16, the 8-bit
// floats) cross as unsigned integers of their width; tsc/_tensors.py
// reinterprets them. Runtime errors become tsc._tsc.Error with the status
// code's name in `code`.
//
//===----------------------------------------------------------------------===//

#include "tsc/runtime.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// The buffer-protocol format of `dtype`'s elements (struct module
/// letters); empty for packed sub-byte types, which share bytes.
std::string bufferFormat(tsc_dtype_t dtype) {
  switch (dtype) {
  case TSC_DTYPE_F32:
    return "f";
  case TSC_DTYPE_F64:
    return "d";
  case TSC_DTYPE_F16:
    return "e";
  case TSC_DTYPE_I8:
    return "b";
  case TSC_DTYPE_I16:
    return "h";
  case TSC_DTYPE_I32:
    return "i";
  case TSC_DTYPE_I64:
    return "q";
  case TSC_DTYPE_BOOL:
    return "?";
  case TSC_DTYPE_BF16:
  case TSC_DTYPE_U16:
    return "H";
  case TSC_DTYPE_U8:
  case TSC_DTYPE_F8E4M3FN:
  case TSC_DTYPE_F8E4M3FNUZ:
  case TSC_DTYPE_F8E5M2:
  case TSC_DTYPE_F8E5M2FNUZ:
  case TSC_DTYPE_F8E8M0:
    return "B";
  case TSC_DTYPE_U32:
    return "I";
  case TSC_DTYPE_U64:
    return "Q";
  default:
    return "";
  }
}

std::string dtypeName(tsc_dtype_t dtype) {
  const char *name = tsc_dtype_name(dtype);
  return name ? name : "dtype " + std::to_string(int(dtype));
}

/// One input or output of a model: its name, dtype name and dims (an int,
/// or the name of the symbol the dim is).
py::dict describe(const tsc::Model &model, size_t i, bool input) {
  tsc_model_t *m = model.get();
  size_t rank =
      input ? tsc_model_input_rank(m, i) : tsc_model_output_rank(m, i);
  py::list shape;
  for (size_t d = 0; d < rank; ++d) {
    int64_t symbol = input ? tsc_model_input_dim_symbol(m, i, d)
                           : tsc_model_output_dim_symbol(m, i, d);
    if (symbol >= 0)
      shape.append(py::str(model.symbolName(size_t(symbol))));
    else
      shape.append(input ? tsc_model_input_dim_size(m, i, d)
                         : tsc_model_output_dim_size(m, i, d));
  }
  py::dict entry;
  entry["name"] = input ? model.inputName(i) : model.outputName(i);
  entry["dtype"] =
      dtypeName(input ? model.inputDtype(i) : model.outputDtype(i));
  entry["shape"] = shape;
  return entry;
}

/// A session that takes buffers and gives tensors.
class ArraySession {
public:
  ArraySession(const tsc::Model &model, int threads, int device,
               bool cudaGraphs, bool profile)
      : model_(model),
        session_(model, options(threads, device, cudaGraphs, profile)) {}

  /// Runs on `inputs` (name → buffer); returns the outputs in the model's
  /// order as (name, tensor) pairs.
  std::vector<std::pair<std::string, tsc::Tensor>> run(const py::dict &inputs) {
    // The inputs' buffers stay referenced until the run is over.
    std::vector<py::buffer> keep;
    for (auto [key, value] : inputs) {
      std::string name = py::cast<std::string>(key);
      std::optional<size_t> index;
      for (size_t i = 0; i < model_.inputCount(); ++i)
        if (model_.inputName(i) == name)
          index = i;
      if (!index)
        throw tsc::Error(TSC_STATUS_INVALID_ARGUMENT,
                         "the model has no input named '" + name + "'");
      tsc_dtype_t dtype = model_.inputDtype(*index);
      if (bufferFormat(dtype).empty())
        throw tsc::Error(TSC_STATUS_UNIMPLEMENTED,
                         "input '" + name + "' is " + dtypeName(dtype) +
                             ", which the Python package cannot pass yet");
      py::buffer buffer = py::reinterpret_borrow<py::buffer>(value);
      py::buffer_info info = buffer.request();
      if (size_t(info.itemsize) != tsc_dtype_size(dtype))
        throw tsc::Error(TSC_STATUS_INVALID_ARGUMENT,
                         "input '" + name + "' must be " + dtypeName(dtype) +
                             ", not elements of " +
                             std::to_string(info.itemsize) + " bytes");
      int64_t stride = info.itemsize;
      for (py::ssize_t d = info.ndim; d-- > 0;) {
        if (info.shape[d] > 1 && info.strides[d] != stride)
          throw tsc::Error(TSC_STATUS_INVALID_ARGUMENT,
                           "input '" + name + "' is not C-contiguous");
        stride *= info.shape[d];
      }
      std::vector<int64_t> dims(info.shape.begin(), info.shape.end());
      tsc::Tensor tensor = tsc::Tensor::wrapHost(
          dtype, dims, info.ptr, size_t(info.size * info.itemsize));
      session_.bindInput(name, tensor);
      keep.push_back(std::move(buffer));
    }
    {
      py::gil_scoped_release release;
      session_.run();
    }
    // The run is over: the inputs need not stay bound to these arrays.
    for (auto [key, value] : inputs)
      tsc::detail::check(tsc_session_bind_input(
          session_.get(), py::cast<std::string>(key).c_str(), nullptr));

    std::vector<std::pair<std::string, tsc::Tensor>> outputs;
    for (size_t i = 0; i < model_.outputCount(); ++i) {
      std::string name = model_.outputName(i);
      tsc::Tensor tensor = session_.output(name);
      if (bufferFormat(tensor.dtype()).empty())
        throw tsc::Error(TSC_STATUS_UNIMPLEMENTED,
                         "output '" + name + "' is " +
                             dtypeName(tensor.dtype()) +
                             ", which the Python package cannot return yet");
      outputs.emplace_back(name, std::move(tensor));
    }
    return outputs;
  }

  /// "gemm" steps' library and ISA on this CPU (None without host GEMMs).
  std::optional<std::string> gemmLibrary() const {
    const char *text = tsc_session_gemm_library(session_.get());
    return text ? std::optional<std::string>(text) : std::nullopt;
  }

private:
  static tsc_session_options_t options(int threads, int device, bool cudaGraphs,
                                       bool profile) {
    tsc_session_options_t options;
    tsc_session_options_init(&options);
    options.thread_count = threads;
    options.cuda_device = device;
    options.cuda_graphs = cudaGraphs ? 1 : 0;
    options.profile = profile ? 1 : 0;
    return options;
  }

  tsc::Model model_;
  tsc::Session session_;
};

} // namespace

PYBIND11_MODULE(_tsc, m) {
  m.doc() = "The tsc runtime's C API (use the tsc package, not this module).";
  static py::exception<tsc::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const tsc::Error &e) {
      py::object type = py::reinterpret_borrow<py::object>(error.ptr());
      py::object value = type(e.what());
      value.attr("code") = tsc_status_code_name(e.code());
      PyErr_SetObject(type.ptr(), value.ptr());
    }
  });
  m.attr("api_version") = tsc_api_version();

  py::class_<tsc::Tensor>(m, "Tensor", py::buffer_protocol(),
                          "An output: the runtime's memory as a buffer.")
      .def_property_readonly(
          "dtype", [](const tsc::Tensor &t) { return dtypeName(t.dtype()); })
      .def_property_readonly("shape", &tsc::Tensor::dims)
      .def_buffer([](tsc::Tensor &t) {
        std::vector<int64_t> dims = t.dims();
        py::ssize_t size = py::ssize_t(tsc_dtype_size(t.dtype()));
        std::vector<py::ssize_t> shape(dims.begin(), dims.end());
        std::vector<py::ssize_t> strides(dims.size());
        for (size_t d = dims.size(); d-- > 0;) {
          strides[d] = size;
          size *= shape[d];
        }
        return py::buffer_info(t.data(), py::ssize_t(tsc_dtype_size(t.dtype())),
                               bufferFormat(t.dtype()),
                               py::ssize_t(dims.size()), shape, strides,
                               /*readonly=*/false);
      });

  py::class_<tsc::Model>(m, "Model")
      .def(py::init(
               [](const std::string &path) { return tsc::Model::load(path); }),
           py::arg("path"), "Loads the artifact at `path`.")
      .def_property_readonly("target",
                             [](const tsc::Model &model) {
                               return std::string(
                                   tsc_model_target(model.get()));
                             })
      .def_property_readonly("producer",
                             [](const tsc::Model &model) {
                               return std::string(
                                   tsc_model_producer(model.get()));
                             })
      .def_property_readonly(
          "symbols",
          [](const tsc::Model &model) {
            py::list symbols;
            for (size_t i = 0; i < model.symbolCount(); ++i)
              symbols.append(py::make_tuple(
                  model.symbolName(i), tsc_model_symbol_min(model.get(), i),
                  tsc_model_symbol_max(model.get(), i)));
            return symbols;
          },
          "(name, min, max) of each symbolic dim.")
      .def_property_readonly(
          "inputs",
          [](const tsc::Model &model) {
            py::list inputs;
            for (size_t i = 0; i < model.inputCount(); ++i)
              inputs.append(describe(model, i, true));
            return inputs;
          },
          "{name, dtype, shape} of each input; a symbolic dim is its name.")
      .def_property_readonly("outputs", [](const tsc::Model &model) {
        py::list outputs;
        for (size_t i = 0; i < model.outputCount(); ++i)
          outputs.append(describe(model, i, false));
        return outputs;
      });

  py::class_<ArraySession>(m, "Session")
      .def(py::init<const tsc::Model &, int, int, bool, bool>(),
           py::arg("model"), py::arg("threads") = 0, py::arg("device") = 0,
           py::arg("cuda_graphs") = true, py::arg("profile") = false)
      .def("run", &ArraySession::run, py::arg("inputs"),
           "Runs on {name: buffer}; returns [(name, Tensor)] in output order.")
      .def_property_readonly("gemm_library", &ArraySession::gemmLibrary);
}
