//! Moving games through the program: sources of bytes (files, stdin, decompression,
//! progress counting), and later the parallel work and the sinks.

pub mod source;
