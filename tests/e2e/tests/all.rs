//! The end-to-end suites as one test binary (one link instead of one per
//! suite); each suite is a module of `suite/`. Support code lives in the
//! `hangar-e2e` library (`src/`).

mod suite;
