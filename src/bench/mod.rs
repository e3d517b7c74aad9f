//! Fixed inputs for benchmarks: `synth`, the synthetic collection with hidden true ratings
//! (`arbiter bench synth`).

pub mod synth;
