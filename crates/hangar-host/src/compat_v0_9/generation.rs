//! The protocol generation a connection negotiated.
//!
//! The host negotiates `1.0.0` or `0.9.x` (`ahp_types::SUPPORTED_PROTOCOL_VERSIONS`);
//! what a 0.9 connection gets and sends is in [`super`].

/// The negotiated protocol generation of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolGeneration {
    /// `0.9.x`: VS Code's current agent host client.
    V0_9,
    /// `1.0.x` and later 1.x.
    V1,
}

impl ProtocolGeneration {
    /// From the negotiated version string.
    pub fn from_version(version: &str) -> Self {
        if version.starts_with("0.") {
            Self::V0_9
        } else {
            Self::V1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_of_a_version() {
        assert_eq!(ProtocolGeneration::from_version("0.9.3"), ProtocolGeneration::V0_9);
        assert_eq!(ProtocolGeneration::from_version("1.0.0"), ProtocolGeneration::V1);
    }
}
