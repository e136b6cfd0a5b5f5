// Verilog sources of buddy-hdl, one per top module.
bpc_compressor.v
bpc_decompressor.v
zvc_compressor.v
zvc_decompressor.v
mag_bdi32_compressor.v
mag_bdi32_decompressor.v
mag_bdi16_compressor.v
mag_bdi16_decompressor.v
mag_bdi64_compressor.v
mag_bdi64_decompressor.v
address_translator.v
metadata_cache.v
pipelined_metadata_cache.v
request_contexts.v
buddy_controller.v
buddy_controller_zvc.v
buddy_controller_mag_bdi32.v
