"""pytest options of the cocotb suite; one test per (simulator, wrapper)."""

from pathlib import Path

from axis_vectors import wrappers

HERE = Path(__file__).resolve().parent
SIMULATORS = ("icarus", "verilator")


def pytest_addoption(parser):
    group = parser.getgroup("buddy-axis", "AXI4-Stream codec wrappers")
    group.addoption("--sim", action="append", choices=SIMULATORS, help="simulator; repeat for both [default: icarus]")
    group.addoption("--vectors", type=int, default=0, help="replay at most N vectors per wrapper, spread over the file [default: 0, all]")
    group.addoption("--verilog-dir", type=Path, default=HERE.parent, help="the verilog-out/ folder (or a copy) [default: this folder's parent]")
    group.addoption("--build-dir", type=Path, default=None, help="where simulators build [default: pytest's temporary folder]")
    group.addoption("--seed", type=int, default=1, help="seed of the random pauses [default: 1]")
    group.addoption("--p-valid", type=int, default=70, help="percent of cycles the source offers a transfer [default: 70]")
    group.addoption("--p-ready", type=int, default=60, help="percent of cycles the sink is ready [default: 60]")


def pytest_generate_tests(metafunc):
    if "wrapper_file" in metafunc.fixturenames:
        found = wrappers(metafunc.config.getoption("verilog_dir"))
        if not found:
            raise SystemExit(f"no *_axis.v in {metafunc.config.getoption('verilog_dir')}: --verilog-dir must be a verilog-out/ folder")
        metafunc.parametrize("wrapper_file", found, ids=[p.stem for p in found])
    if "sim" in metafunc.fixturenames:
        metafunc.parametrize("sim", metafunc.config.getoption("sim") or ["icarus"])
