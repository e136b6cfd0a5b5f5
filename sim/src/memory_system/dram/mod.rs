//! The HBM2 device memory as a JEDEC timing model (issue 17): one
//! cycle-level controller per channel ([`channel`]) with the timing of
//! [`timing`], validated against DRAMsim3 on the device-level streams of
//! [`stream`].

pub mod channel;
pub mod stream;
pub mod timing;
