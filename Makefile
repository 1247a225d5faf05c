# The two commands the README starts with:
#   make run    installs what is missing, builds, and opens Vroom
#   make test   installs what is missing, builds, and runs every test
# Everything else here is a step of those two.

WAILS      := build/bin-tools/wails
BIN        := build/bin/vroom
TAGS       := desktop,production,webkit2_41
GO_SOURCES := $(shell find . -name '*.go' -not -path './frontend/*' -not -path './build/*')

.PHONY: run test deps frontend build clean

run: build
	./$(BIN)

test: deps frontend build/mcp-inspector/node_modules/.package-lock.json build/browserless/node_modules/.package-lock.json
	build/testenv.sh build/test.sh

deps:
	build/deps.sh

# The Wails CLI is built from a pinned tools module (go install of
# wails@v2.9.2 no longer compiles on current Go).
$(WAILS): build/tools/go.mod build/tools/go.sum
	cd build/tools && go build -o ../bin-tools/wails github.com/wailsapp/wails/v2/cmd/wails

# A go.mod in node_modules makes it a module of its own, so the Go code
# some npm packages carry (flatted's) is not part of ./... for vet and test.
frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	printf 'module vroom/frontend/node_modules\n' > frontend/node_modules/go.mod

# The MCP Inspector's CLI: the client nobody here wrote, for app's MCP tests.
build/mcp-inspector/node_modules/.package-lock.json: build/mcp-inspector/package-lock.json
	cd build/mcp-inspector && npm ci --no-audit --no-fund

# browserless, a browser farm on this machine's Chromium, for app's
# remote-browser tests (TestRemoteBrowserless; CI fails without it).
build/browserless/node_modules/.package-lock.json: build/browserless/package-lock.json
	cd build/browserless && npm ci --no-audit --no-fund

# The bindings are generated from the Go methods bound to the window, so the
# frontend is type-checked against the Go side as it is now.
frontend: deps $(WAILS) frontend/node_modules/.package-lock.json
	$(WAILS) generate module -tags webkit2_41 >/dev/null
	cd frontend && npm run --silent build

build: deps frontend
	go build -tags $(TAGS) -o $(BIN) .

clean:
	rm -rf build/bin build/bin-tools frontend/dist/assets frontend/dist/index.html frontend/node_modules frontend/wailsjs build/mcp-inspector/node_modules build/browserless/node_modules
