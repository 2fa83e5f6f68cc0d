#!/usr/bin/env bash
# Start a real ACP agent (installed in ./node_modules by `npm ci`) in ACP stdio mode, with its
# model API pointed at the mock model server (../mock-model-server/server.mjs).
#
#   MOCK_PORT=43210 AGENT_HOME=/tmp/fresh-home ./run-agent.sh codex|claude|qwen|gemini|copilot|opencode
#   codex-signin: Codex on its built-in OpenAI provider (base URL: the mock), which
#   needs signing in: it refuses sessions until it is given a key (CODEX_API_KEY from
#   the caller, the one variable kept) and told `authenticate`.
#   ./run-agent.sh --print AGENT      # write the config files, print env + command, do not exec
#
# Env in:
#   MOCK_PORT   (required) port of the mock on 127.0.0.1
#   AGENT_HOME  fresh, empty, per-run directory used as HOME (default: a new mktemp -d)
#   MOCK_HOST   default 127.0.0.1
#   NODE        node binary (default: node on PATH)
# The agent inherits the caller's cwd; ACP session/new {cwd} is what tells it the workspace.
# stdout/stdin are the ACP NDJSON stream; everything this script says goes to stderr.
set -euo pipefail

PRINT=0
if [[ "${1:-}" == "--print" ]]; then PRINT=1; shift; fi
AGENT="${1:-}"
if [[ -z "$AGENT" ]]; then
  echo "usage: $0 [--print] codex|claude|qwen|gemini|copilot|opencode" >&2
  exit 2
fi
shift || true

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NM="$DIR/node_modules"
NODE="${NODE:-node}"
: "${MOCK_PORT:?MOCK_PORT must be set to the mock model server port}"
HOST="${MOCK_HOST:-127.0.0.1}"
BASE="http://$HOST:$MOCK_PORT"
if [[ -z "${AGENT_HOME:-}" ]]; then
  AGENT_HOME="$(mktemp -d -t hangar-agent-home.XXXXXX)"
  echo "run-agent.sh: AGENT_HOME not set, using $AGENT_HOME" >&2
fi
mkdir -p "$AGENT_HOME"
AGENT_HOME="$(cd "$AGENT_HOME" && pwd)"

if [[ ! -d "$NM" ]]; then
  echo "run-agent.sh: $NM missing; run: (cd $DIR && npm ci --no-audit --no-fund)" >&2
  exit 3
fi

# Do not leak the caller's real credentials / endpoints into the agent (codex-signin
# keeps the key its host signs it in with).
SIGNIN_KEY="${CODEX_API_KEY:-}"
for v in $(compgen -e); do
  case "$v" in
    ANTHROPIC_* | OPENAI_* | GEMINI_* | GOOGLE_* | CODEX_* | CLAUDE_* | QWEN_* | COPILOT_* | GH_* | GITHUB_* | OPENCODE_* | AZURE_OPENAI_* | VERTEX* | XDG_*) unset "$v" ;;
  esac
done

export HOME="$AGENT_HOME"
export NO_UPDATE_NOTIFIER=1
export NO_COLOR=1
ENV_KEYS=(HOME NO_UPDATE_NOTIFIER NO_COLOR)

setenv() { export "$1=$2"; ENV_KEYS+=("$1"); }

case "$AGENT" in
  codex | codex-signin)
    setenv CODEX_HOME "$AGENT_HOME/.codex"
    # Codex refuses to put its sandbox helper under TMPDIR, so CODEX_HOME must not be inside
    # TMPDIR. AGENT_HOME itself usually lives in /tmp, hence a private TMPDIR next to .codex.
    setenv TMPDIR "$AGENT_HOME/tmp"
    setenv MOCK_API_KEY "mock-key"
    mkdir -p "$CODEX_HOME" "$TMPDIR"
    if [[ "$AGENT" == codex-signin ]]; then
      PROVIDER="openai_base_url = \"$BASE/v1\""
      [[ -n "$SIGNIN_KEY" ]] && setenv CODEX_API_KEY "$SIGNIN_KEY"
    else
      PROVIDER='model_provider = "mock"'
    fi
    cat >"$CODEX_HOME/config.toml" <<EOF
model = "gpt-5.4"
$PROVIDER
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "$BASE/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
# No bwrap on this machine (and codex-acp's npm package does not bundle one): without this,
# every exec_command/apply_patch fails inside the sandbox helper and no ACP tool_call is emitted.
use_legacy_landlock = true

[analytics]
enabled = false

[feedback]
enabled = false
EOF
    CMD=("$NM/@zed-industries/codex-acp-linux-x64/bin/codex-acp")
    FILES=("$CODEX_HOME/config.toml")
    ;;
  claude)
    setenv CLAUDE_CONFIG_DIR "$AGENT_HOME/.claude"
    setenv ANTHROPIC_BASE_URL "$BASE"
    setenv ANTHROPIC_API_KEY "mock-key"
    setenv CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC 1
    setenv DISABLE_TELEMETRY 1
    setenv DISABLE_AUTOUPDATER 1
    setenv DISABLE_ERROR_REPORTING 1
    # As root the CLI refuses --allow-dangerously-skip-permissions unless IS_SANDBOX=1, and
    # session/new then fails with -32603 "Query closed before response received".
    if [[ "$(id -u)" == 0 ]]; then setenv IS_SANDBOX 1; fi
    mkdir -p "$CLAUDE_CONFIG_DIR"
    CMD=("$NODE" "$NM/@zed-industries/claude-agent-acp/dist/index.js")
    FILES=()
    ;;
  qwen)
    setenv OPENAI_BASE_URL "$BASE/v1"
    setenv OPENAI_API_KEY "mock-key"
    setenv OPENAI_MODEL "mock-model"
    mkdir -p "$AGENT_HOME/.qwen"
    cat >"$AGENT_HOME/.qwen/settings.json" <<EOF
{
  "security": { "auth": { "selectedType": "openai" } },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false }
}
EOF
    CMD=("$NODE" "$NM/@qwen-code/qwen-code/cli.js" --acp)
    FILES=("$AGENT_HOME/.qwen/settings.json")
    ;;
  gemini)
    setenv GOOGLE_GEMINI_BASE_URL "$BASE"
    setenv GEMINI_API_KEY "mock-key"
    mkdir -p "$AGENT_HOME/.gemini"
    cat >"$AGENT_HOME/.gemini/settings.json" <<EOF
{
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false }
}
EOF
    CMD=("$NODE" "$NM/@google/gemini-cli/bundle/gemini.js" --acp)
    FILES=("$AGENT_HOME/.gemini/settings.json")
    ;;
  copilot)
    # Copilot CLI's offline BYOK mode (`copilot help environment`): no GitHub account, the
    # model API is the mock's OpenAI Chat Completions endpoint.
    setenv COPILOT_HOME "$AGENT_HOME/.copilot"
    setenv COPILOT_AUTO_UPDATE false
    setenv COPILOT_OFFLINE true
    setenv COPILOT_PROVIDER_BASE_URL "$BASE/v1"
    setenv COPILOT_PROVIDER_TYPE openai
    setenv COPILOT_PROVIDER_WIRE_API completions
    setenv COPILOT_PROVIDER_API_KEY "mock-key"
    setenv COPILOT_MODEL "gpt-4.1"
    mkdir -p "$COPILOT_HOME"
    CMD=("$NM/@github/copilot-linux-x64/copilot" --acp --stdio)
    FILES=()
    ;;
  opencode)
    # OpenCode keeps its state under the XDG dirs (sessions: $XDG_DATA_HOME/opencode).
    setenv XDG_CONFIG_HOME "$AGENT_HOME/.config"
    setenv XDG_DATA_HOME "$AGENT_HOME/.local/share"
    setenv XDG_STATE_HOME "$AGENT_HOME/.local/state"
    setenv XDG_CACHE_HOME "$AGENT_HOME/.cache"
    setenv OPENCODE_CONFIG "$AGENT_HOME/opencode.json"
    setenv OPENCODE_DISABLE_MODELS_FETCH 1
    setenv OPENCODE_DISABLE_AUTOUPDATE 1
    setenv OPENCODE_DISABLE_LSP_DOWNLOAD 1
    setenv OPENCODE_DISABLE_SHARE 1
    setenv OPENCODE_DISABLE_DEFAULT_PLUGINS 1
    mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
    cat >"$OPENCODE_CONFIG" <<EOF
{
  "model": "mock/mock-model",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": { "baseURL": "$BASE/v1", "apiKey": "mock-key" },
      "models": { "mock-model": { "name": "Mock model" } }
    }
  },
  "permission": { "edit": "ask", "bash": "ask" },
  "autoupdate": false,
  "share": "disabled"
}
EOF
    # npm also installs the x64-baseline build; the plain one is used.
    CMD=("$NM/opencode-linux-x64/bin/opencode" acp)
    FILES=("$OPENCODE_CONFIG")
    ;;
  *)
    echo "run-agent.sh: unknown agent '$AGENT' (codex|codex-signin|claude|qwen|gemini|copilot|opencode)" >&2
    exit 2
    ;;
esac

if [[ "$PRINT" == 1 ]]; then
  echo "# env"
  for k in "${ENV_KEYS[@]}"; do printf '%s=%q\n' "$k" "${!k}"; done
  echo "# files written"
  for f in "${FILES[@]+"${FILES[@]}"}"; do echo "## $f"; cat "$f"; done
  echo "# command"
  printf '%q ' "${CMD[@]}" "$@"
  echo
  exit 0
fi

exec "${CMD[@]}" "$@"
