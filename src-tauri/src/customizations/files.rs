//! Reading and saving a customization's file for the editors: over AHP
//! on the session's host, so "This computer" and a remote host are the
//! same. A save carries the etag the edit started from (`ifMatch`); when
//! the file changed on disk since, nothing is written and the disk's text
//! comes back so the person can choose (keep theirs, take the disk's).

use ahp::hosts::{HostClientHandle, HostId};
use ahp_types::errors::ahp_error_codes;

use crate::core::Core;
use crate::error::CoreError;
use crate::host_files::{delete, etag, read_text, transfer, write_text};
use hangar_desktop_protocol::customization::{
    CustomizationDeleteArgs, CustomizationFile, CustomizationFileArgs, CustomizationSaveArgs,
    CustomizationTransferArgs, SaveOutcome,
};

async fn client(core: &Core, host: &str) -> Result<HostClientHandle, CoreError> {
    let id = HostId::new(host);
    core.multi().client(&id).await.ok_or_else(|| CoreError::NotFound(format!("host {host} is not connected")))
}

/// `customizations.read`.
pub async fn read(core: &Core, a: CustomizationFileArgs) -> Result<CustomizationFile, CoreError> {
    let client = client(core, &a.host).await?;
    // The etag first: a change between the two reads makes the next save
    // a conflict, never a silent overwrite.
    let etag = etag(&client, &a.session, &a.uri).await?;
    let text = read_text(&client, &a.session, &a.uri)
        .await?
        .ok_or_else(|| CoreError::Unexpected(format!("{} is not a text file", a.uri)))?;
    Ok(CustomizationFile { uri: a.uri, text, etag })
}

/// `customizations.version`: the file's etag alone (`None`: gone).
pub async fn version(core: &Core, a: CustomizationFileArgs) -> Result<Option<String>, CoreError> {
    let client = client(core, &a.host).await?;
    match etag(&client, &a.session, &a.uri).await {
        Err(e) if e.rpc_code() == Some(ahp_error_codes::NOT_FOUND) => Ok(None),
        other => other,
    }
}

/// `customizations.save`.
pub async fn save(core: &Core, a: CustomizationSaveArgs) -> Result<SaveOutcome, CoreError> {
    let client = client(core, &a.host).await?;
    match write_text(&client, &a.session, &a.uri, &a.text, a.etag, a.create).await {
        Ok(()) => Ok(SaveOutcome::Saved { etag: etag(&client, &a.session, &a.uri).await? }),
        Err(e) if e.rpc_code() == Some(ahp_error_codes::ALREADY_EXISTS) => Ok(SaveOutcome::Exists),
        Err(e) if e.rpc_code() == Some(ahp_error_codes::CONFLICT) => {
            let disk = read_text(&client, &a.session, &a.uri).await.ok().flatten();
            let etag = etag(&client, &a.session, &a.uri).await.ok().flatten();
            Ok(SaveOutcome::Conflict { disk, etag })
        }
        Err(e) => Err(e),
    }
}

/// `customizations.transfer`: `Exists` when the new name is taken.
pub async fn transfer_to(core: &Core, a: CustomizationTransferArgs) -> Result<SaveOutcome, CoreError> {
    let client = client(core, &a.host).await?;
    match transfer(&client, &a.session, &a.from, &a.to, a.keep).await {
        Ok(()) => Ok(SaveOutcome::Saved { etag: None }),
        Err(e) if e.rpc_code() == Some(ahp_error_codes::ALREADY_EXISTS) => Ok(SaveOutcome::Exists),
        Err(e) => Err(e),
    }
}

/// `customizations.delete`.
pub async fn remove(core: &Core, a: CustomizationDeleteArgs) -> Result<(), CoreError> {
    delete(&client(core, &a.host).await?, &a.session, &a.uri, a.recursive).await
}
