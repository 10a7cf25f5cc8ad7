package tempo

import (
	"encoding/hex"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/mpp"
)

// Selectors and topics (docs/protocol.md, "Tempo", ABI words).
var (
	SelectorTransferWithMemo = [4]byte{0x95, 0x77, 0x7d, 0x59} // transferWithMemo(address,uint256,bytes32)
	SelectorTransfer         = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	SelectorOpenV2           = [4]byte{0xed, 0xc5, 0x3b, 0x00} // open(address,address,address,uint96,bytes32,address)
	SelectorOpenV1           = [4]byte{0xc7, 0x9e, 0xa4, 0x85} // open(address,address,uint128,bytes32,address)

	// TopicTransferWithMemo is keccak256("TransferWithMemo(address,address,uint256,bytes32)").
	TopicTransferWithMemo = common.HexToHash("0x57bc7354aa85aed339e000bccffabbc529466af35f0772c8f8ee1145927de7f0")
)

// PathUSD is Tempo's pathUSD TIP-20 token.
var PathUSD = common.HexToAddress("0x20c0000000000000000000000000000000000000")

var (
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	// MaxNonceKey is 2^256−1, the nonce key of an expiring nonce.
	MaxNonceKey = maxUint256
)

// Word encodings of ABI's static values.

func addressWord(a common.Address) []byte { return common.LeftPadBytes(a.Bytes(), 32) }

func uintWord(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }

// parseAddress reads an address string as mpp.IsAddress accepts it.
func parseAddress(s string) (common.Address, bool) {
	if !mpp.IsAddress(s) {
		return common.Address{}, false
	}
	return common.HexToAddress(s), true
}

// parseWord reads "0x" and 64 hex digits.
func parseWord(s string) ([32]byte, bool) {
	var w [32]byte
	if !mpp.IsWord32(s) {
		return w, false
	}
	_, err := hex.Decode(w[:], []byte(s[2:]))
	return w, err == nil
}

// MemoCalldata is transferWithMemo(to, amount, memo): the selector and three
// words, 100 bytes. A malformed address, an amount outside uint256 or a memo
// that is not 32 bytes of hex is tempo/tx-malformed.
func MemoCalldata(to string, amount *big.Int, memo string) ([]byte, error) {
	a, okA := parseAddress(to)
	m, okM := parseWord(memo)
	if !okA || !okM || amount == nil || amount.Sign() < 0 || amount.Cmp(maxUint256) > 0 {
		return nil, rails.Refuse(CodeTxMalformed)
	}
	return memoCalldata(a, amount, m), nil
}

func memoCalldata(to common.Address, amount *big.Int, memo [32]byte) []byte {
	out := make([]byte, 0, 100)
	out = append(out, SelectorTransferWithMemo[:]...)
	out = append(out, addressWord(to)...)
	out = append(out, uintWord(amount)...)
	return append(out, memo[:]...)
}

// transferCalldata is transfer(to, amount): 68 bytes.
func transferCalldata(to common.Address, amount *big.Int) []byte {
	out := make([]byte, 0, 68)
	out = append(out, SelectorTransfer[:]...)
	out = append(out, addressWord(to)...)
	return append(out, uintWord(amount)...)
}

// MemoOf returns the memo of a transferWithMemo call to token: exactly 100
// bytes, the selector, and bytes 4–15 zero (an address word). ok is false for
// any other call.
func MemoOf(c DecodedCall, token common.Address) (memo [32]byte, ok bool) {
	if len(c.To) != 20 || common.BytesToAddress(c.To) != token || len(c.Input) != 100 {
		return memo, false
	}
	if [4]byte(c.Input[0:4]) != SelectorTransferWithMemo {
		return memo, false
	}
	for _, b := range c.Input[4:16] {
		if b != 0 {
			return memo, false
		}
	}
	return [32]byte(c.Input[68:100]), true
}

// OpenV2Calldata is the TIP-20 channel reserve's open(payee, operator,
// token, deposit, salt, authorizedSigner): 196 bytes. The salt is H.
func OpenV2Calldata(payee, operator, token common.Address, deposit *big.Int, salt [32]byte, signer common.Address) []byte {
	out := append([]byte{}, SelectorOpenV2[:]...)
	for _, w := range [][]byte{addressWord(payee), addressWord(operator), addressWord(token), uintWord(deposit), salt[:], addressWord(signer)} {
		out = append(out, w...)
	}
	return out
}

// OpenV1Calldata is the v1 escrow's open(payee, token, deposit, salt,
// authorizedSigner): 164 bytes. The salt is H.
func OpenV1Calldata(payee, token common.Address, deposit *big.Int, salt [32]byte, signer common.Address) []byte {
	out := append([]byte{}, SelectorOpenV1[:]...)
	for _, w := range [][]byte{addressWord(payee), addressWord(token), uintWord(deposit), salt[:], addressWord(signer)} {
		out = append(out, w...)
	}
	return out
}

// ChannelIDV1 is keccak256 of the seven words (payer, payee, token, salt,
// authorizedSigner, escrow, chainId): the v1 escrow's channel id.
func ChannelIDV1(payer, payee, token common.Address, salt [32]byte, signer, escrow common.Address, chainID int64) [32]byte {
	return [32]byte(crypto.Keccak256(addressWord(payer), addressWord(payee), addressWord(token), salt[:],
		addressWord(signer), addressWord(escrow), uintWord(big.NewInt(chainID))))
}

// Descriptor is a v2 channel's descriptor as a credential carries it, every
// member a string.
type Descriptor struct {
	Payer, Payee, Operator, Token, Salt, AuthorizedSigner, ExpiringNonceHash string
}

// ChannelIDV2 is keccak256 of the nine words (payer, payee, operator, token,
// salt, authorizedSigner, expiringNonceHash, escrow, chainId): the TIP-20
// channel reserve's channel id. A malformed member, escrow or chain is
// tempo/descriptor-mismatch.
func ChannelIDV2(d Descriptor, escrow string, chainID int64) ([32]byte, error) {
	bad := rails.Refuse(CodeDescriptorMismatch)
	var words [][]byte
	for _, a := range []string{d.Payer, d.Payee, d.Operator, d.Token} {
		addr, ok := parseAddress(a)
		if !ok {
			return [32]byte{}, bad
		}
		words = append(words, addressWord(addr))
	}
	salt, ok1 := parseWord(d.Salt)
	signer, ok2 := parseAddress(d.AuthorizedSigner)
	nonceHash, ok3 := parseWord(d.ExpiringNonceHash)
	esc, ok4 := parseAddress(escrow)
	if !ok1 || !ok2 || !ok3 || !ok4 || chainID <= 0 || chainID > 1<<53-1 {
		return [32]byte{}, bad
	}
	words = append(words, salt[:], addressWord(signer), nonceHash[:], addressWord(esc), uintWord(big.NewInt(chainID)))
	return [32]byte(crypto.Keccak256(words...)), nil
}

// hex0x writes "0x" and lowercase hex.
func hex0x(b []byte) string { return "0x" + hex.EncodeToString(b) }
