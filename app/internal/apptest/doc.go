// Package apptest holds what the tests of app's packages share: fixture
// web sites, the shared Chromium of a test binary, scripted-model steps and
// small fakes. Only tests import it; it imports browser, agents and
// internal's test kit, never an app package.
package apptest
