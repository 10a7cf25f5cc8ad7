package evm

// Reading an auth-capture settlement from the operator's authorize (or
// charge) receipt, for a buyer checking what the seller names. The escrow's
// PaymentAuthorized(paymentInfoHash indexed, PaymentInfo, amount,
// tokenCollector) log is the payment: its topic 1 is the hash of the payment
// info with the payer set, and that info's salt is H or its commitment
// (docs/auth-capture.md). The tokens move from the payer into the
// operator's token store (Permit2: Permit2 sends them there) or into the
// EIP-3009 collector first (receiveWithAuthorization names the collector as
// receiver); the escrow reverts unless the store gained the amount
// (https://github.com/base/commerce-payments, AuthCaptureEscrow._collectTokens).

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/termsgate/termsgate/atr"
	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails"
	"github.com/termsgate/termsgate/rails/x402"
)

// AuthCaptureSettlement is what an auth-capture payment commits to, as its
// settlement shows it.
type AuthCaptureSettlement struct {
	H           atr.Hash    // the salt, or the saltNonce the salt commits to
	Escrow      string      // the escrow deployment the option names
	Topic       string      // PaymentAuthorized, or the deployment's PaymentCharged (paymentFlow authorization)
	Info        PaymentInfo // the payer set
	PaymentHash atr.Hash    // Info's hash: the escrow log's topic 1
	// Into is where the payer's Transfer goes: the EIP-3009 collector, or
	// for Permit2 the operator's token store.
	Into string
}

func (a authCapture) settlement(p jsonv.Value) (AuthCaptureSettlement, error) {
	got, err := a.presented(p)
	if err != nil {
		return AuthCaptureSettlement{}, err
	}
	t := got.t
	info := t.info(got.payer, got.salt, got.expiry)
	hash, ok := info.Hash(t.chainID, t.deployment.Escrow)
	if !ok {
		return AuthCaptureSettlement{}, rails.Refuse(x402.CodePayloadMalformed)
	}
	s := AuthCaptureSettlement{H: got.h, Escrow: t.deployment.Escrow, Topic: TopicPaymentAuthorized, Info: info, PaymentHash: hash,
		Into: TokenStoreOf(t.deployment.Escrow, t.operator)}
	if t.authorizationFlow {
		s.Topic = t.deployment.ChargedTopic
	}
	if a.method == "eip3009" {
		s.Into = t.deployment.EIP3009Collector
	}
	return s, nil
}

// Settlement reads a presented payment (the read-back's refusals) as what
// its settlement must show.
func (AuthCaptureEIP3009) Settlement(presented jsonv.Value) (AuthCaptureSettlement, error) {
	return authCaptureEIP3009.settlement(presented)
}

// Settlement reads a presented payment as what its settlement must show.
func (AuthCapturePermit2) Settlement(presented jsonv.Value) (AuthCaptureSettlement, error) {
	return authCapturePermit2.settlement(presented)
}

// EscrowEvent is one PaymentAuthorized or PaymentCharged log of an escrow,
// decoded: both begin with the payment info, the amount and the token
// collector.
type EscrowEvent struct {
	PaymentHash string // topic 1, as given
	Info        PaymentInfo
	Amount      *big.Int
	Collector   string
}

// EscrowEventOf decodes l when the escrow emitted it under topic0 with two
// topics and at least 14 data words whose addresses and small integers
// read; ok is false for any other log.
func EscrowEventOf(l Log, escrow, topic0 string) (EscrowEvent, bool) {
	if !SameAddress(l.Address, escrow) || !SameBytes(l.Topic(0), topic0) || len(l.Topics) != 2 || !isWord32(l.Topics[1]) {
		return EscrowEvent{}, false
	}
	data, ok := HexBytes(l.Data)
	if !ok || len(data) < 14*32 || len(data)%32 != 0 {
		return EscrowEvent{}, false
	}
	word := func(i int) []byte { return data[32*i : 32*(i+1)] }
	okAll := true
	addr := func(i int) string {
		w := word(i)
		okAll = okAll && isZero(w[:12])
		return hex0x(w[12:])
	}
	small := func(i, bits int) uint64 {
		n := new(big.Int).SetBytes(word(i))
		okAll = okAll && n.BitLen() <= bits
		return n.Uint64()
	}
	e := EscrowEvent{PaymentHash: l.Topics[1]}
	e.Info.Operator, e.Info.Payer, e.Info.Receiver, e.Info.Token = addr(0), addr(1), addr(2), addr(3)
	e.Info.MaxAmount = new(big.Int).SetBytes(word(4))
	okAll = okAll && e.Info.MaxAmount.BitLen() <= 120
	e.Info.PreApprovalExpiry, e.Info.AuthorizationExpiry, e.Info.RefundExpiry = small(5, 48), small(6, 48), small(7, 48)
	e.Info.MinFeeBps, e.Info.MaxFeeBps = uint16(small(8, 16)), uint16(small(9, 16))
	e.Info.FeeReceiver = addr(10)
	copy(e.Info.Salt[:], word(11))
	e.Amount = new(big.Int).SetBytes(word(12))
	e.Collector = addr(13)
	return e, okAll
}

// tokenStoreCode are the two ends of the init code of Solady's minimal
// proxy (LibClone.initCodeHash), around the implementation's address.
var tokenStoreCode = [2][]byte{
	common.FromHex("0x602c3d8160093d39f33d3d3d3d363d3d37363d73"),
	common.FromHex("0x5af43d3d93803e602a57fd5bf3"),
}

// TokenStoreOf is the escrow's getTokenStore(operator): the CREATE2 clone,
// by the escrow with salt bytes32(bytes20(operator)), of the TokenStore
// implementation the escrow's constructor created (its first creation, at
// nonce 1).
func TokenStoreOf(escrow, operator string) string {
	e := common.HexToAddress(escrow)
	impl := crypto.CreateAddress(e, 1)
	init := make([]byte, 0, 53)
	init = append(init, tokenStoreCode[0]...)
	init = append(init, impl.Bytes()...)
	init = append(init, tokenStoreCode[1]...)
	var salt [32]byte
	copy(salt[:], common.HexToAddress(operator).Bytes())
	return hex0x(crypto.CreateAddress2(e, salt, crypto.Keccak256(init)).Bytes())
}
