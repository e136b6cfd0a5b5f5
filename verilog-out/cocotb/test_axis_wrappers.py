"""Build each AXI4-Stream codec wrapper of verilog-out/ in a simulator and run
``cocotb_axis.py`` on it (cocotb's runner). See README.md in this folder."""

import shutil

import pytest
from cocotb.runner import get_runner

from axis_vectors import load_wrapper

# What each simulator needs on PATH, named in the failure when missing.
TOOLS = {"icarus": ["iverilog", "vvp"], "verilator": ["verilator", "make", "g++"]}


def test_wrapper_matches_golden_vectors(sim, wrapper_file, request, tmp_path_factory):
    missing = [t for t in TOOLS[sim] if shutil.which(t) is None]
    if missing:
        pytest.fail(f"{sim} needs {', '.join(missing)} on PATH (Debian: apt-get install {'iverilog' if sim == 'icarus' else 'verilator g++ make'})")
    opt = request.config.getoption
    wrapper = load_wrapper(wrapper_file)
    vectors = wrapper.vector_file
    assert vectors.is_file(), f"{vectors} is missing"
    build_dir = (opt("build_dir") / f"{sim}-{wrapper.name}") if opt("build_dir") else tmp_path_factory.mktemp(f"{sim}-{wrapper.name}")
    runner = get_runner(sim)
    # Verilator: warnings stay warnings (the delivery is lint-clean under
    # its own waivers; cocotb adds its own top-level C++).
    build_args = ["-Wno-fatal"] if sim == "verilator" else []
    runner.build(verilog_sources=wrapper.sources, hdl_toplevel=wrapper.name, build_dir=build_dir, build_args=build_args, always=True)
    runner.test(
        test_module="cocotb_axis",
        hdl_toplevel=wrapper.name,
        build_dir=build_dir,
        extra_env={
            "BUDDY_AXIS_WRAPPER": str(wrapper_file),
            "BUDDY_AXIS_VECTORS": str(vectors),
            "BUDDY_AXIS_SHARE": str(opt("vectors")),
            "BUDDY_AXIS_SEED": str(opt("seed")),
            "BUDDY_AXIS_P_VALID": str(opt("p_valid")),
            "BUDDY_AXIS_P_READY": str(opt("p_ready")),
        },
    )
