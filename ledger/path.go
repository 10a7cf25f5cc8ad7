package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultPath is where the CLI and the MCP server keep their state when no
// --state is given: termsgate/state.db under the user's state directory
// ($XDG_STATE_HOME, else ~/.local/state; on macOS ~/Library/Application
// Support; on Windows %LocalAppData%).
func DefaultPath() (string, error) {
	dir, err := stateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "termsgate", "state.db"), nil
}

func stateDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return d, nil
		}
		return "", errors.New("ledger: %LocalAppData% is not set; give --state")
	case "darwin", "ios":
		return os.UserConfigDir() // ~/Library/Application Support
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d, nil // the XDG spec ignores a relative path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("ledger: no home directory to keep the state in; give --state")
	}
	return filepath.Join(home, ".local", "state"), nil
}
