//! Reading and writing a file on a host over AHP (`resourceResolve`,
//! `resourceRead`, `resourceWrite`, `resourceCopy`, `resourceMove`,
//! `resourceDelete`), as text, with its etag: shared by the Changes view and
//! the customization editors.

use ahp::hosts::HostClientHandle;
use ahp_types::commands::{
    ContentEncoding, ResourceCopyParams, ResourceCopyResult, ResourceDeleteParams, ResourceDeleteResult,
    ResourceMoveParams, ResourceMoveResult, ResourceReadParams, ResourceReadResult, ResourceResolveParams,
    ResourceResolveResult, ResourceWriteParams, ResourceWriteResult,
};
use base64::Engine as _;

use crate::error::CoreError;

/// The text of `uri` (`None`: binary, not UTF-8).
pub async fn read_text(client: &HostClientHandle, channel: &str, uri: &str) -> Result<Option<String>, CoreError> {
    let params = ResourceReadParams { channel: channel.to_owned(), meta: None, uri: uri.to_owned(), encoding: None };
    let read: ResourceReadResult = client.request("resourceRead", params).await?;
    Ok(match read.encoding {
        ContentEncoding::Utf8 => Some(read.data),
        ContentEncoding::Base64 => {
            base64::engine::general_purpose::STANDARD.decode(read.data).ok().and_then(|b| String::from_utf8(b).ok())
        }
    })
}

/// The current etag of `uri` (`None` when the host gives none).
pub async fn etag(client: &HostClientHandle, channel: &str, uri: &str) -> Result<Option<String>, CoreError> {
    let params =
        ResourceResolveParams { channel: channel.to_owned(), meta: None, uri: uri.to_owned(), follow_symlinks: None };
    let resolved: ResourceResolveResult = client.request("resourceResolve", params).await?;
    Ok(resolved.etag)
}

/// Write `text` to `uri`: only over version `if_match` when given, only as
/// a new file when `create_only`.
pub async fn write_text(
    client: &HostClientHandle,
    channel: &str,
    uri: &str,
    text: &str,
    if_match: Option<String>,
    create_only: bool,
) -> Result<(), CoreError> {
    let params = ResourceWriteParams {
        channel: channel.to_owned(),
        meta: None,
        uri: uri.to_owned(),
        data: text.to_owned(),
        encoding: ContentEncoding::Utf8,
        content_type: None,
        create_only: create_only.then_some(true),
        mode: None,
        position: None,
        if_match,
    };
    let _: ResourceWriteResult = client.request("resourceWrite", params).await?;
    Ok(())
}

/// Copy (`keep`) or move `from` to `to`, refused when `to` exists.
pub async fn transfer(
    client: &HostClientHandle,
    channel: &str,
    from: &str,
    to: &str,
    keep: bool,
) -> Result<(), CoreError> {
    let (channel, source, destination) = (channel.to_owned(), from.to_owned(), to.to_owned());
    if keep {
        let params = ResourceCopyParams { channel, meta: None, source, destination, fail_if_exists: Some(true) };
        let _: ResourceCopyResult = client.request("resourceCopy", params).await?;
    } else {
        let params = ResourceMoveParams { channel, meta: None, source, destination, fail_if_exists: Some(true) };
        let _: ResourceMoveResult = client.request("resourceMove", params).await?;
    }
    Ok(())
}

/// Delete `uri` (a folder with all it holds when `recursive`).
pub async fn delete(client: &HostClientHandle, channel: &str, uri: &str, recursive: bool) -> Result<(), CoreError> {
    let params = ResourceDeleteParams {
        channel: channel.to_owned(),
        meta: None,
        uri: uri.to_owned(),
        recursive: Some(recursive),
    };
    let _: ResourceDeleteResult = client.request("resourceDelete", params).await?;
    Ok(())
}
