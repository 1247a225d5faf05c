module vroom/mcp-inspector

// This module only fences the npm packages installed here (some ship Go
// files) out of the main module's ./... patterns.

go 1.26
