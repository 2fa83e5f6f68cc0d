//! The open session's customizations (AHP `SessionState.customizations`,
//! issue 11) on the desktop side.
//!
//! Map:
//! - [`tree`]   — one way to read any entry of the AHP tree (shared fields,
//!   decision list, own effective state), walking and finding ids;
//! - [`view`]   — the tree as the UI's [`hangar_desktop_protocol::customization`]
//!   view, and what an open chat's streams were last sent of it;
//! - [`toggle`] — the full decision list a `customizations.toggle` turns
//!   into a `session/customizationToggled`;
//! - [`files`]  — reading and saving a customization's file for the
//!   editors (`customizations.read` / `customizations.save`, etag-checked).

pub mod files;
pub mod toggle;
pub mod tree;
pub mod view;
