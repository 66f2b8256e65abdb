# lit configuration of tsc's GoogleTest unit tests.
import lit.formats

config.name = "tsc-unit"
config.suffixes = []
config.test_source_root = config.tsc_unit_dir
config.test_exec_root = config.tsc_unit_dir
config.test_format = lit.formats.GoogleTest(".", "Tests")
