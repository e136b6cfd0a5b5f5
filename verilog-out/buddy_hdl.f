// Verilog sources of buddy-hdl, one per top module.
zvc_compressor.v
zvc_decompressor.v
