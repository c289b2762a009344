//! Collectives on arrays across devices and processes (being written).

pub mod bootstrap;
