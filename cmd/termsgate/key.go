package main

// Wallets: create an encrypted key file, read the address one holds, and
// the passphrase rules every command that opens one follows.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/term"

	"github.com/termsgate/termsgate/gate"
	"github.com/termsgate/termsgate/signer"
)

func init() {
	commands["key"] = command{"create an encrypted key file (key new), or print the address one holds (key address)", runKey}
}

const keyUsage = `key new [--out FILE] [--passphrase-file FILE]
       termsgate key address FILE

key new creates a secp256k1 key, writes it encrypted under a passphrase as a
go-ethereum keystore file (Web3 Secret Storage v3, scrypt), and prints its
address. The passphrase comes from --passphrase-file, else from
$TERMSGATE_PASSPHRASE, else it is asked for twice on the terminal without
echo, as every command that opens a key file takes it. The file is never
overwritten.

key address prints the address a key file names, without opening it.`

// keyScryptN is the scrypt cost of new key files; tests lower it.
var keyScryptN = signer.StandardScryptN

func runKey(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		code := usageError(stderr, "key", errors.New("expected new or address"))
		fmt.Fprintf(stderr, "\nUsage: termsgate %s\n", keyUsage)
		return code
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintf(stdout, "Usage: termsgate %s\n", keyUsage)
		return exitOK
	case "new":
		return runKeyNew(args[1:], stdin, stdout, stderr)
	case "address":
		return runKeyAddress(args[1:], stdout, stderr)
	default:
		return usageError(stderr, "key", fmt.Errorf("unknown subcommand %q: expected new or address", args[0]))
	}
}

func runKeyNew(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("key new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the key file to write (default keystore-ADDRESS.json in the current directory)")
	passFile := new(string)
	fs.Var(fileFlag{passFile}, "passphrase-file", "a file holding the passphrase (else $TERMSGATE_PASSPHRASE, else asked on the terminal)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: termsgate %s\n\nFlags:\n", keyUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		return usageError(stderr, "key new", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	pass, err := newPassphrase(*passFile, stdin, stderr)
	if err != nil {
		return usageError(stderr, "key new", err)
	}
	if pass == "" {
		return usageError(stderr, "key new", errors.New("the passphrase is empty; a key file under an empty passphrase protects nothing"))
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		fmt.Fprintln(stderr, "termsgate key new:", err)
		return exitFailure
	}
	blob, err := signer.EncryptKeystore(key, pass, keyScryptN)
	if err != nil {
		fmt.Fprintln(stderr, "termsgate key new:", err)
		return exitFailure
	}
	addr := crypto.PubkeyToAddress(key.PublicKey).Hex()
	path := *out
	if path == "" {
		path = "keystore-" + addr + ".json"
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return usageError(stderr, "key new", err)
	}
	if _, err := f.Write(append(blob, '\n')); err != nil {
		f.Close()
		os.Remove(path)
		fmt.Fprintln(stderr, "termsgate key new:", err)
		return exitFailure
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		fmt.Fprintln(stderr, "termsgate key new:", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "termsgate: wrote %s; keep it and its passphrase: neither can be recovered\n", path)
	fmt.Fprintln(stdout, addr)
	return exitOK
}

func runKeyAddress(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(stdout, "Usage: termsgate %s\n", keyUsage)
		return exitOK
	}
	if len(args) != 1 {
		return usageError(stderr, "key address", fmt.Errorf("expected one key file, got %d arguments", len(args)))
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return usageError(stderr, "key address", err)
	}
	a, err := signer.KeystoreAddress(b)
	if err != nil {
		return usageError(stderr, "key address", fmt.Errorf("%s: %w", args[0], err))
	}
	fmt.Fprintln(stdout, a)
	return exitOK
}

// newPassphrase is the passphrase of a new key file, found as a key file's
// is (keyFlags.passphrase): --passphrase-file, else $TERMSGATE_PASSPHRASE,
// else asked twice on the terminal.
func newPassphrase(file string, stdin io.Reader, stderr io.Writer) (string, error) {
	if file != "" {
		return readPassphraseFile(file)
	}
	if p, ok := os.LookupEnv(passphraseEnv); ok {
		return p, nil
	}
	return promptNewPassphrase(stdin, stderr)
}

// passphraseEnv holds a key file's passphrase for commands run without a
// terminal.
const passphraseEnv = "TERMSGATE_PASSPHRASE"

func readPassphraseFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--passphrase-file: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// errNoPassphrase is a key file with nothing to open it: said as such, not
// as a wrong passphrase.
var errNoPassphrase = errors.New("the key file is encrypted and no passphrase was given: use --passphrase-file FILE or $TERMSGATE_PASSPHRASE, or run on a terminal to be asked")

// terminalFd is the file descriptor of stdin when it is a terminal.
func terminalFd(stdin io.Reader) (int, bool) {
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	return int(f.Fd()), true
}

// promptPassphrase asks once, without echo, when stdin is a terminal.
func promptPassphrase(stdin io.Reader, stderr io.Writer, prompt string) (string, error) {
	fd, ok := terminalFd(stdin)
	if !ok {
		return "", errNoPassphrase
	}
	fmt.Fprint(stderr, prompt)
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(stderr)
	if err != nil {
		return "", fmt.Errorf("reading the passphrase: %w", err)
	}
	return string(b), nil
}

func promptNewPassphrase(stdin io.Reader, stderr io.Writer) (string, error) {
	if _, ok := terminalFd(stdin); !ok {
		return "", errors.New("no passphrase: give --passphrase-file FILE or $TERMSGATE_PASSPHRASE, or run on a terminal to be asked")
	}
	p, err := promptPassphrase(stdin, stderr, "Passphrase for the new key: ")
	if err != nil {
		return "", err
	}
	again, err := promptPassphrase(stdin, stderr, "The same passphrase again: ")
	if err != nil {
		return "", err
	}
	if p != again {
		return "", errors.New("the two passphrases differ")
	}
	return p, nil
}

// clefSigner opens the Clef at endpoint for account on network; without an
// account it takes the one Clef holds, and refuses to guess among several.
func clefSigner(endpoint, account, network string) (gate.Signer, error) {
	if account == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		accts, err := signer.ClefAccounts(ctx, endpoint)
		if err != nil {
			return nil, fmt.Errorf("--clef %s: listing its accounts: %w", endpoint, err)
		}
		switch len(accts) {
		case 0:
			return nil, fmt.Errorf("--clef %s holds no account", endpoint)
		case 1:
			account = accts[0].Hex()
		default:
			names := make([]string, len(accts))
			for i, a := range accts {
				names[i] = a.Hex()
			}
			return nil, fmt.Errorf("--clef %s holds %d accounts (%s): name one with --clef-account", endpoint, len(accts), strings.Join(names, ", "))
		}
	}
	return signer.NewClef(endpoint, account, network)
}
