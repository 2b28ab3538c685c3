#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the Swift SDK bundle that describes cross-arm64.sh's sysroot to
# SwiftPM (SE-0387): BUNDLE/info.json, BUNDLE/sdk/swift-sdk.json and a
# toolset that links with lld. Paths in swift-sdk.json are relative to it.
# Usage: scripts/arm64/sdk-bundle.sh BUNDLE (BUNDLE/sdk/sysroot exists).
set -euo pipefail
bundle=$1
triple=aarch64-unknown-linux-gnu
cat > "$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$triple": {
      "type": "swiftSDK",
      "version": "1",
      "variants": [{ "path": "sdk" }]
    }
  }
}
JSON
cat > "$bundle/sdk/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "$triple": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
# "-use-ld=lld" alone: a toolset's linker path would be resolved relative
# to this file. The swiftlang package carries its own ld.lld.
cat > "$bundle/sdk/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
JSON
