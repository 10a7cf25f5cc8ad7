package permit2contracts

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/termsgate/termsgate/jsonv"
	"github.com/termsgate/termsgate/rails/evm"
)

// PaymentInfo is the escrow's PaymentInfo in the ABI's Go shape (uint120 and
// uint48 as *big.Int, uint16 as uint16).
type PaymentInfo struct {
	Operator, Payer, Receiver, Token common.Address
	MaxAmount                        *big.Int
	PreApprovalExpiry                *big.Int
	AuthorizationExpiry              *big.Int
	RefundExpiry                     *big.Int
	MinFeeBps, MaxFeeBps             uint16
	FeeReceiver                      common.Address
	Salt                             *big.Int
}

// EscrowPayment is a signed x402/auth-capture/eip155/permit2 payment as the
// operator sends it to the escrow: the payment info (payer set) and the
// Permit2 signature the collector hands Permit2.
type EscrowPayment struct {
	Info      PaymentInfo
	Signature []byte
}

// EscrowPaymentOf reads an x402 auth-capture Permit2 payment on the v1.0
// escrow: the payment info from accepted (operator = extra.captureAuthorizer,
// receiver = payTo, token = asset, maxAmount = amount, authorizationExpiry =
// extra.captureDeadline, refundExpiry = extra.refundDeadline, the fee bounds,
// feeReceiver = extra.feeRecipient) and from the payload (payer =
// permit2Authorization.from, preApprovalExpiry = its deadline, salt), as
// docs/auth-capture.md says the payer's nonce commits to them. The spender
// must be that escrow's Permit2 collector.
func EscrowPaymentOf(payment *jsonv.Object) (EscrowPayment, error) {
	var p EscrowPayment
	accepted, _ := payment.GetObject("accepted")
	extra, _ := accepted.GetObject("extra")
	payload, _ := payment.GetObject("payload")
	auth, _ := payload.GetObject("permit2Authorization")
	text := func(o *jsonv.Object, k string) string {
		v, _ := o.Get(k)
		if n, ok := jsonv.AsSafeInt(v); ok {
			return strconv.FormatInt(n, 10)
		}
		s, _ := jsonv.AsString(v)
		return s
	}
	if s := text(accepted, "scheme"); s != "auth-capture" {
		return p, errors.New("permit2contracts: the payment's scheme is not auth-capture")
	}
	if e := text(extra, "authCaptureEscrow"); !strings.EqualFold(e, Escrow.Address.Hex()) {
		return p, errors.New("permit2contracts: the option does not name the v1.0 escrow")
	}
	if !strings.EqualFold(text(auth, "spender"), Permit2Collector.Address.Hex()) {
		return p, errors.New("permit2contracts: the spender is not the escrow's Permit2 collector")
	}
	for _, a := range []struct {
		o   *jsonv.Object
		k   string
		dst *common.Address
	}{{extra, "captureAuthorizer", &p.Info.Operator}, {auth, "from", &p.Info.Payer}, {accepted, "payTo", &p.Info.Receiver},
		{accepted, "asset", &p.Info.Token}, {extra, "feeRecipient", &p.Info.FeeReceiver}} {
		if !evm.IsAddress(text(a.o, a.k)) {
			return p, fmt.Errorf("permit2contracts: %s is not an address", a.k)
		}
		*a.dst = common.HexToAddress(text(a.o, a.k))
	}
	var minFee, maxFee *big.Int
	for _, n := range []struct {
		o   *jsonv.Object
		k   string
		dst **big.Int
	}{{accepted, "amount", &p.Info.MaxAmount}, {auth, "deadline", &p.Info.PreApprovalExpiry},
		{extra, "captureDeadline", &p.Info.AuthorizationExpiry}, {extra, "refundDeadline", &p.Info.RefundExpiry},
		{extra, "minFeeBps", &minFee}, {extra, "maxFeeBps", &maxFee}} {
		v, ok := new(big.Int).SetString(text(n.o, n.k), 10)
		if !ok || !evm.IsUint256Decimal(text(n.o, n.k)) {
			return p, fmt.Errorf("permit2contracts: %s is not a decimal", n.k)
		}
		*n.dst = v
	}
	if !minFee.IsUint64() || minFee.Uint64() > 10000 || !maxFee.IsUint64() || maxFee.Uint64() > 10000 {
		return p, errors.New("permit2contracts: a fee bound is above 10000 bps")
	}
	p.Info.MinFeeBps, p.Info.MaxFeeBps = uint16(minFee.Uint64()), uint16(maxFee.Uint64())
	salt, ok := evm.HexBytes(text(payload, "salt"))
	if !ok || len(salt) != 32 {
		return p, errors.New("permit2contracts: the salt is not 32 bytes of hex")
	}
	p.Info.Salt = new(big.Int).SetBytes(salt)
	sig, ok := evm.HexBytes(text(payload, "signature"))
	if !ok || len(sig) != 65 {
		return p, errors.New("permit2contracts: the signature is not 65 bytes of hex")
	}
	p.Signature = sig
	return p, nil
}

// Authorize is the calldata of the escrow's authorize(paymentInfo, amount,
// Permit2 collector, signature): the operator collects amount into escrow.
func (p EscrowPayment) Authorize(amount *big.Int) ([]byte, error) {
	return Escrow.ABI.Pack("authorize", p.Info, amount, Permit2Collector.Address, p.Signature)
}

// Capture is the calldata of the escrow's capture(paymentInfo, amount,
// feeBps, feeReceiver): the operator pays the receiver from escrow.
func (p EscrowPayment) Capture(amount *big.Int, feeBps uint16) ([]byte, error) {
	return Escrow.ABI.Pack("capture", p.Info, amount, feeBps, p.Info.FeeReceiver)
}

// Authorized is what an escrow authorize call carries, read back.
type Authorized struct {
	Info      PaymentInfo
	Amount    *big.Int
	Collector common.Address
}

// AuthorizedOf reads authorize calldata sent to to, which must be the
// escrow.
func AuthorizedOf(to common.Address, calldata []byte) (Authorized, error) {
	m := Escrow.ABI.Methods["authorize"]
	if to != Escrow.Address || len(calldata) < 4 || string(calldata[:4]) != string(m.ID) {
		return Authorized{}, errors.New("permit2contracts: the call is not AuthCaptureEscrow.authorize")
	}
	values, err := m.Inputs.Unpack(calldata[4:])
	if err != nil {
		return Authorized{}, fmt.Errorf("permit2contracts: authorize's arguments: %w", err)
	}
	var a struct {
		PaymentInfo    PaymentInfo
		Amount         *big.Int
		TokenCollector common.Address
		CollectorData  []byte
	}
	if err := copyArgs(m.Inputs, &a, values); err != nil {
		return Authorized{}, fmt.Errorf("permit2contracts: authorize's arguments: %w", err)
	}
	return Authorized{Info: a.PaymentInfo, Amount: a.Amount, Collector: a.TokenCollector}, nil
}

// EVMInfo is info as rails/evm's PaymentInfo, whose Hash is the escrow's
// payment hash.
func (info PaymentInfo) EVMInfo() evm.PaymentInfo {
	return evm.PaymentInfo{
		Operator: info.Operator.Hex(), Payer: info.Payer.Hex(), Receiver: info.Receiver.Hex(), Token: info.Token.Hex(),
		MaxAmount: info.MaxAmount, PreApprovalExpiry: info.PreApprovalExpiry.Uint64(),
		AuthorizationExpiry: info.AuthorizationExpiry.Uint64(), RefundExpiry: info.RefundExpiry.Uint64(),
		MinFeeBps: info.MinFeeBps, MaxFeeBps: info.MaxFeeBps, FeeReceiver: info.FeeReceiver.Hex(),
		Salt: [32]byte(common.BigToHash(info.Salt)),
	}
}
