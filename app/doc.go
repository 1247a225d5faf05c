// Package app joins browser, agents and voice into the desktop application.
// It is the only package that imports Wails' runtime and go-keyring: bound
// methods for the frontend, events out, settings and secrets, wiring. It stays
// thin; behaviour lives in the packages it wires.
package app
