//! Helpers of the fuzz tests.

pub mod mutate;
