//! Page-level template detection: per-node classifier scores smoothed over the DOM tree.

pub mod isotonic;
