package signer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"golang.org/x/crypto/scrypt"
)

// The keystore is go-ethereum's encrypted key file, the Web3 Secret Storage
// format version 3
// (https://ethereum.org/developers/docs/data-structures-and-encoding/web3-secret-storage/):
// the key encrypted with AES-128-CTR under a key derived from the passphrase
// by scrypt (or PBKDF2-HMAC-SHA256), and a Keccak-256 MAC that tells a wrong
// passphrase from a damaged file. It is written here rather than imported
// from go-ethereum's accounts/keystore because that package pulls in
// go-ethereum's core types, and with them KZG, gnark and blst code that
// signing a payment never runs; the tests hold this to go-ethereum's
// keystore in both directions.

// ErrWrongPassphrase is a passphrase that does not open the key file (its
// MAC does not match).
var ErrWrongPassphrase = errors.New("signer: keystore: the passphrase does not open this key file")

// Scrypt parameters: StandardScryptN is what go-ethereum's geth writes by
// default; decryption accepts any power of two up to maxScryptN so that a
// hostile file cannot demand gigabytes.
const (
	StandardScryptN = 1 << 18
	StandardScryptP = 1
	scryptR         = 8
	maxScryptN      = 1 << 20
	maxPBKDF2Iter   = 10_000_000
	keyFileMaxBytes = 64 << 10
)

type keyFileJSON struct {
	Address string         `json:"address,omitempty"`
	Crypto  keyFileCrypto  `json:"crypto"`
	ID      string         `json:"id"`
	Version int            `json:"version"`
	Legacy  *keyFileCrypto `json:"Crypto,omitempty"` // some writers capitalise it
}

type keyFileCrypto struct {
	Cipher       string          `json:"cipher"`
	CipherText   string          `json:"ciphertext"`
	CipherParams cipherParams    `json:"cipherparams"`
	KDF          string          `json:"kdf"`
	KDFParams    json.RawMessage `json:"kdfparams"`
	MAC          string          `json:"mac"`
}

type cipherParams struct {
	IV string `json:"iv"`
}

// FromKeystore decrypts a go-ethereum (Web3 Secret Storage v3) keystore JSON
// with passphrase and returns a signer for its key on network.
func FromKeystore(keyJSON []byte, passphrase, network string) (*Local, error) {
	key, err := DecryptKeystore(keyJSON, passphrase)
	if err != nil {
		return nil, err
	}
	return NewLocal(key, network), nil
}

// FromKeystoreFile is FromKeystore on a file.
func FromKeystoreFile(path, passphrase, network string) (*Local, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	return FromKeystore(data, passphrase, network)
}

func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, keyFileMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	if len(b) > keyFileMaxBytes {
		return nil, fmt.Errorf("signer: keystore: %s is larger than %d bytes, too large for a key file", path, keyFileMaxBytes)
	}
	return b, nil
}

// KeystoreAddress reads the address a key file names, without decrypting it.
func KeystoreAddress(keyJSON []byte) (string, error) {
	var kf keyFileJSON
	if err := json.Unmarshal(keyJSON, &kf); err != nil {
		return "", fmt.Errorf("signer: keystore: not a key file: %w", err)
	}
	a := strings.TrimPrefix(strings.ToLower(kf.Address), "0x")
	if b, err := hex.DecodeString(a); err != nil || len(b) != 20 {
		return "", errors.New("signer: keystore: the key file names no address (it can still be opened with its passphrase)")
	}
	return common.HexToAddress(a).Hex(), nil
}

// DecryptKeystore opens a version 3 key file with passphrase.
func DecryptKeystore(keyJSON []byte, passphrase string) (*ecdsa.PrivateKey, error) {
	var kf keyFileJSON
	if err := json.Unmarshal(keyJSON, &kf); err != nil {
		return nil, fmt.Errorf("signer: keystore: not a key file: %w", err)
	}
	if kf.Version != 3 {
		return nil, fmt.Errorf("signer: keystore: version %d; only version 3 key files are read", kf.Version)
	}
	c := kf.Crypto
	if c.Cipher == "" && kf.Legacy != nil {
		c = *kf.Legacy
	}
	if c.Cipher != "aes-128-ctr" {
		return nil, fmt.Errorf("signer: keystore: cipher %q; only aes-128-ctr is read", c.Cipher)
	}
	dk, err := deriveKey(c.KDF, c.KDFParams, passphrase)
	if err != nil {
		return nil, err
	}
	ct, err1 := hex.DecodeString(c.CipherText)
	iv, err2 := hex.DecodeString(c.CipherParams.IV)
	mac, err3 := hex.DecodeString(c.MAC)
	if err1 != nil || err2 != nil || err3 != nil || len(iv) != aes.BlockSize || len(mac) != 32 {
		return nil, errors.New("signer: keystore: the ciphertext, iv or mac is not hex of the right length")
	}
	if subtle.ConstantTimeCompare(crypto.Keccak256(dk[16:32], ct), mac) != 1 {
		return nil, ErrWrongPassphrase
	}
	plain := make([]byte, len(ct))
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	cipher.NewCTR(block, iv).XORKeyStream(plain, ct)
	key, err := crypto.ToECDSA(plain)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: the decrypted key is not a secp256k1 key: %w", err)
	}
	if kf.Address != "" {
		want := strings.TrimPrefix(strings.ToLower(kf.Address), "0x")
		if got := strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()[2:]); got != want {
			return nil, fmt.Errorf("signer: keystore: the key opens to 0x%s, not the address the file names (0x%s)", got, want)
		}
	}
	return key, nil
}

func deriveKey(kdf string, raw json.RawMessage, passphrase string) ([]byte, error) {
	switch kdf {
	case "scrypt":
		var p struct {
			N, R, P, DKLen int
			Salt           string
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("signer: keystore: scrypt parameters: %w", err)
		}
		salt, err := hex.DecodeString(p.Salt)
		if err != nil || p.DKLen != 32 || p.N < 2 || p.N > maxScryptN || p.N&(p.N-1) != 0 || p.R < 1 || p.R > 32 || p.P < 1 || p.P > 16 {
			return nil, fmt.Errorf("signer: keystore: scrypt parameters out of range (n %d, r %d, p %d, dklen %d)", p.N, p.R, p.P, p.DKLen)
		}
		dk, err := scrypt.Key([]byte(passphrase), salt, p.N, p.R, p.P, p.DKLen)
		if err != nil {
			return nil, fmt.Errorf("signer: keystore: %w", err)
		}
		return dk, nil
	case "pbkdf2":
		var p struct {
			C     int
			DKLen int
			PRF   string
			Salt  string
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("signer: keystore: pbkdf2 parameters: %w", err)
		}
		salt, err := hex.DecodeString(p.Salt)
		if err != nil || p.PRF != "hmac-sha256" || p.DKLen != 32 || p.C < 1 || p.C > maxPBKDF2Iter {
			return nil, fmt.Errorf("signer: keystore: pbkdf2 parameters out of range (prf %q, c %d, dklen %d)", p.PRF, p.C, p.DKLen)
		}
		return pbkdf2.Key(sha256.New, passphrase, salt, p.C, p.DKLen)
	default:
		return nil, fmt.Errorf("signer: keystore: kdf %q; scrypt and pbkdf2 are read", kdf)
	}
}

// EncryptKeystore writes key as a version 3 key file under passphrase, with
// scrypt at cost n (StandardScryptN for a real wallet).
func EncryptKeystore(key *ecdsa.PrivateKey, passphrase string, n int) ([]byte, error) {
	if n < 2 || n > maxScryptN || n&(n-1) != 0 {
		return nil, fmt.Errorf("signer: keystore: scrypt n %d is not a power of two from 2 to %d", n, maxScryptN)
	}
	salt := make([]byte, 32)
	iv := make([]byte, aes.BlockSize)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	if _, err := rand.Read(iv); err != nil {
		return nil, err
	}
	dk, err := scrypt.Key([]byte(passphrase), salt, n, scryptR, StandardScryptP, 32)
	if err != nil {
		return nil, fmt.Errorf("signer: keystore: %w", err)
	}
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		return nil, err
	}
	plain := crypto.FromECDSA(key)
	ct := make([]byte, len(plain))
	cipher.NewCTR(block, iv).XORKeyStream(ct, plain)
	params, _ := json.Marshal(map[string]any{"dklen": 32, "n": n, "p": StandardScryptP, "r": scryptR, "salt": hex.EncodeToString(salt)})
	kf := keyFileJSON{
		Address: strings.ToLower(crypto.PubkeyToAddress(key.PublicKey).Hex()[2:]),
		ID:      uuid.NewString(),
		Version: 3,
		Crypto: keyFileCrypto{
			Cipher: "aes-128-ctr", CipherText: hex.EncodeToString(ct),
			KDF: "scrypt", KDFParams: params, MAC: hex.EncodeToString(crypto.Keccak256(dk[16:32], ct)),
		},
	}
	kf.Crypto.CipherParams.IV = hex.EncodeToString(iv)
	return json.MarshalIndent(kf, "", "  ")
}
