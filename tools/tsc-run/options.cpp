//===- options.cpp - tsc-run's command line -------------------------------===//

#include "options.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

using namespace tsc::run;

const char *const tsc::run::kUsage = R"(usage: tsc-run MODEL.tscm [options]
       tsc-run MODEL.tscm --info [--json]
       tsc-run --list-devices
       tsc-run --version

Runs a compiled tsc artifact (on the host CPU, or on a GPU for --target=cuda
artifacts) and prints each output's name, shape and dtype.

options:
  --input NAME=FILE.npy   bind input NAME to the array in FILE.npy (repeatable);
                          inputs not given get random data fitting the signature
  --input FILE.npz        bind every array of the archive (np.savez) to the
                          input of its name
  --dim NAME=VALUE        value of symbol NAME for random inputs (repeatable;
                          default: the symbol's maximum, or what a given input sets)
  --expected NAME=FILE.npy
                          compare output NAME with the array in FILE.npy
                          (repeatable): every element within
                          atol + rtol * |expected| (NaN only where NaN);
                          otherwise exit status 3 with the largest error and
                          its index
  --expected FILE.npz     the same for every array of the archive, by name
  --rtol R, --atol A      tolerances of --expected (default 1e-5 and 1e-6)
  --public-key KEY.pem    load the artifact only if MODEL.tscm.sig is its
                          signature by this Ed25519 public key (PEM, as
                          `openssl pkey -pubout` writes it; tsc --sign-key
                          signs); otherwise exit 1 before any of its code runs
  --int-range LO..HI      random integer inputs are uniform in [LO, HI) (default 0..2)
  --seed N                seed of the random inputs (default 0)
  --output-dir DIR        write each output as DIR/NAME.npy (NAME with characters
                          other than [A-Za-z0-9_.-] replaced by '_'); bf16 as <f4,
                          8-bit floats as |u1 holding their bits, i4/i2 as |i1,
                          u4/u2 as |u1, f4e2m1 as |u1 bits, one element a byte
                          (inputs too)
  --output-npz FILE.npz   write the outputs as one archive (np.load reads it),
                          each array as --output-dir writes it
  --threads N             threads of the session (GEMMs and the kernels'
                          parallel loops), 0 = all cores (default 0)
  --bench N               after the warmup runs, time N runs and print min, median,
                          mean, p90, p95, p99 and max latency in ms, the
                          standard deviation and runs per second
  --json                  with --bench or --info: print one JSON object on
                          stdout instead of text (the outputs' lines and the
                          profile go to stderr)
  --info                  print what the artifact holds (inputs and outputs with
                          dtypes and dims, symbols and ranges, target, ISA,
                          format, producer, steps, arena and weight bytes)
                          without running it
  --warmup N              untimed runs before --bench (default 3)
  --timing                print the wall time of loading the model, creating the
                          session and the first run, in ms
  --profile               time every step of the measured runs (the --bench
                          runs, warm-up excluded, else the one run) and print
                          the mean ms per run per kernel kind (the ops a
                          kernel runs, GEMM calls, copies; largest first), per
                          layer, and per step with its layer and source nodes
  --trace FILE.json       write the measured runs' steps as a Chrome trace
                          (trace-event "X" events; chrome://tracing, Perfetto)
  --cuda-device N         CUDA artifacts: the device to run on (default 0)
  --no-cuda-graphs        CUDA artifacts: launch every step of every run
                          instead of replaying a CUDA graph per symbol values
  --list-devices          print the CUDA devices this machine has (or why it
                          has none) and exit
  --version               print tsc-run's version, the runtime API version and
                          the artifact formats it reads
  --help                  print this help
)";

bool tsc::run::isNpzFile(const std::string &file) {
  return file.size() > 4 && file.compare(file.size() - 4, 4, ".npz") == 0;
}

namespace {

[[noreturn]] void usageError(const std::string &message) {
  throw std::runtime_error(message + " (see --help)");
}

int64_t parseInt(const std::string &text, const std::string &what) {
  size_t end = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &end);
  } catch (const std::exception &) {
    end = std::string::npos;
  }
  if (text.empty() || end != text.size())
    usageError("invalid " + what + " '" + text + "'");
  return value;
}

int parseCount(const std::string &text, const std::string &option) {
  int64_t value = parseInt(text, "value for " + option);
  if (value < 0 || value > 1000000000)
    usageError(option + " must be between 0 and 1e9, got " + text);
  return int(value);
}

double parseTolerance(const std::string &text, const std::string &option) {
  size_t end = 0;
  double value = -1;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception &) {
    end = std::string::npos;
  }
  if (text.empty() || end != text.size() || !(value >= 0) || value > 1e30)
    usageError(option + " expects a number >= 0, got '" + text + "'");
  return value;
}

std::pair<std::string, std::string> splitAssignment(const std::string &text,
                                                    const std::string &option) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    usageError(option + " expects NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

} // namespace

Options tsc::run::parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      return o;
    }
    if (arg == "--list-devices") {
      o.listDevices = true;
      return o;
    }
    if (arg == "--version") {
      o.version = true;
      return o;
    }
    if (arg.rfind("--", 0) != 0) {
      if (!o.model.empty())
        usageError("more than one model given ('" + o.model + "' and '" + arg +
                   "')");
      o.model = arg;
      continue;
    }
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else {
      static const char *const kTakesValue[] = {
          "--input",       "--dim",      "--int-range", "--seed",
          "--output-dir",  "--threads",  "--bench",     "--warmup",
          "--cuda-device", "--expected", "--rtol",      "--atol",
          "--public-key",  "--trace",    "--output-npz"};
      bool takes = std::any_of(std::begin(kTakesValue), std::end(kTakesValue),
                               [&](const char *o) { return arg == o; });
      if (takes) {
        if (i + 1 >= argc)
          usageError(arg + " needs a value");
        value = argv[++i];
      }
    }
    if ((arg == "--input" || arg == "--expected") &&
        value.find('=') == std::string::npos && isNpzFile(value)) {
      // An archive: every array in it, by name (the empty name).
      (arg == "--input" ? o.inputs : o.expected).push_back({"", value});
    } else if (arg == "--input") {
      o.inputs.push_back(splitAssignment(value, arg));
    } else if (arg == "--dim") {
      auto [name, text] = splitAssignment(value, arg);
      o.dims.push_back({name, parseInt(text, "value of --dim " + name)});
    } else if (arg == "--int-range") {
      size_t dots = value.find("..");
      if (dots == std::string::npos)
        usageError("--int-range expects LO..HI, got '" + value + "'");
      o.intLo = parseInt(value.substr(0, dots), "--int-range bound");
      o.intHi = parseInt(value.substr(dots + 2), "--int-range bound");
      if (o.intLo >= o.intHi)
        usageError("--int-range " + value + " is empty (LO..HI is [LO, HI))");
    } else if (arg == "--seed") {
      o.seed = uint64_t(parseInt(value, "--seed"));
    } else if (arg == "--output-dir") {
      o.outputDir = value;
    } else if (arg == "--output-npz") {
      if (!isNpzFile(value))
        usageError("--output-npz " + value +
                   ": the file name must end in .npz");
      o.outputNpz = value;
    } else if (arg == "--threads") {
      o.threads = parseCount(value, arg);
    } else if (arg == "--bench") {
      o.bench = parseCount(value, arg);
    } else if (arg == "--warmup") {
      o.warmup = parseCount(value, arg);
    } else if (arg == "--expected") {
      o.expected.push_back(splitAssignment(value, arg));
    } else if (arg == "--rtol") {
      o.rtol = parseTolerance(value, arg);
    } else if (arg == "--atol") {
      o.atol = parseTolerance(value, arg);
    } else if (arg == "--public-key") {
      o.publicKey = value;
    } else if (arg == "--info") {
      o.info = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg == "--trace") {
      o.trace = value;
    } else if (arg == "--timing") {
      o.timing = true;
    } else if (arg == "--cuda-device") {
      o.cudaDevice = parseCount(value, arg);
    } else if (arg == "--no-cuda-graphs") {
      o.cudaGraphs = false;
    } else {
      usageError("unknown option '" + arg + "'");
    }
  }
  if (o.model.empty())
    usageError("no model given");
  if (o.json && !o.info && !o.bench)
    usageError("--json needs --info or --bench");
  if (o.info && (o.bench || o.profile || o.timing || !o.trace.empty() ||
                 !o.inputs.empty() || !o.expected.empty() ||
                 !o.outputDir.empty() || !o.outputNpz.empty()))
    usageError("--info prints the artifact without running it: it takes no "
               "run options");
  return o;
}
