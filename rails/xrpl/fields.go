package xrpl

// Type codes of the binary format (docs/xrpl.md "Binary format").
const (
	TypeUInt16       = 1
	TypeUInt32       = 2
	TypeUInt64       = 3
	TypeHash128      = 4
	TypeHash256      = 5
	TypeAmount       = 6
	TypeBlob         = 7
	TypeAccountID    = 8
	TypeNumber       = 9
	TypeInt32        = 10
	TypeSTObject     = 14
	TypeSTArray      = 15
	TypeUInt8        = 16
	TypeHash160      = 17
	TypePathSet      = 18
	TypeVector256    = 19
	TypeHash192      = 21
	TypeIssue        = 24
	TypeXChainBridge = 25
	TypeCurrency     = 26
)

// FieldID is a field's (type code, field code) pair; fields sort by it.
type FieldID struct{ Type, Code uint8 }

func (f FieldID) ordinal() uint32 { return uint32(f.Type)<<16 | uint32(f.Code) }

// The fields the pairings write or read.
var (
	FieldTransactionType    = FieldID{TypeUInt16, 2}
	FieldNetworkID          = FieldID{TypeUInt32, 1}
	FieldFlags              = FieldID{TypeUInt32, 2}
	FieldSourceTag          = FieldID{TypeUInt32, 3}
	FieldSequence           = FieldID{TypeUInt32, 4}
	FieldDestinationTag     = FieldID{TypeUInt32, 14}
	FieldLastLedgerSequence = FieldID{TypeUInt32, 27}
	FieldCancelAfter        = FieldID{TypeUInt32, 36}
	FieldSettleDelay        = FieldID{TypeUInt32, 39}
	FieldTicketSequence     = FieldID{TypeUInt32, 41}
	FieldPermissionValue    = FieldID{TypeUInt32, 52}
	FieldInvoiceID          = FieldID{TypeHash256, 17}
	FieldChannel            = FieldID{TypeHash256, 22}
	FieldAmount             = FieldID{TypeAmount, 1}
	FieldFee                = FieldID{TypeAmount, 8}
	FieldSendMax            = FieldID{TypeAmount, 9}
	FieldFeeAmountDelta     = FieldID{TypeAmount, 34}
	FieldPublicKey          = FieldID{TypeBlob, 1}
	FieldSigningPubKey      = FieldID{TypeBlob, 3}
	FieldTxnSignature       = FieldID{TypeBlob, 4}
	FieldMemoType           = FieldID{TypeBlob, 12}
	FieldMemoData           = FieldID{TypeBlob, 13}
	FieldMemoFormat         = FieldID{TypeBlob, 14}
	FieldAccount            = FieldID{TypeAccountID, 1}
	FieldDestination        = FieldID{TypeAccountID, 3}
	FieldObjectEnd          = FieldID{TypeSTObject, 1}
	FieldMemo               = FieldID{TypeSTObject, 10}
	FieldSigner             = FieldID{TypeSTObject, 16}
	FieldArrayEnd           = FieldID{TypeSTArray, 1}
	FieldSigners            = FieldID{TypeSTArray, 3}
	FieldMemos              = FieldID{TypeSTArray, 9}
	FieldTransactionResult  = FieldID{TypeUInt8, 3}
	FieldLedgerEntryType    = FieldID{TypeUInt16, 1}
)

// codeSet is a set of field codes (1…255) as a bitmap.
type codeSet [4]uint64

func (s *codeSet) has(c uint8) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func codes(ranges ...[2]int) (s codeSet) {
	for _, r := range ranges {
		for c := r[0]; c <= r[1]; c++ {
			s[c>>6] |= 1 << (c & 63)
		}
	}
	return s
}

func one(c int) [2]int     { return [2]int{c, c} }
func span(a, b int) [2]int { return [2]int{a, b} }

// known are the field codes the XRPL definitions (ripple-binary-codec
// 2.11.0's definitions.json) name for each type; any other pair is refused.
var known = map[uint8]codeSet{
	TypeUInt16:       codes(span(1, 6), one(16), one(21), one(22)),
	TypeUInt32:       codes(span(1, 44), one(48), span(50, 80)),
	TypeUInt64:       codes(span(1, 13), span(19, 33)),
	TypeHash128:      codes(one(1)),
	TypeHash256:      codes(span(1, 14), span(16, 19), span(21, 29), span(34, 41)),
	TypeAmount:       codes(span(1, 13), span(16, 19), span(22, 34)),
	TypeBlob:         codes(span(1, 14), span(16, 21), span(26, 46)),
	TypeAccountID:    codes(span(1, 6), span(8, 12), span(18, 31)),
	TypeNumber:       codes(span(1, 17)),
	TypeInt32:        codes(one(1), one(2)),
	TypeSTObject:     codes(span(1, 13), one(15), one(16), one(18), one(19), span(25, 38)),
	TypeSTArray:      codes(one(1), span(3, 10), one(12), one(13), one(16), one(17), one(21), one(22), span(24, 31)),
	TypeUInt8:        codes(span(1, 6), one(16), one(17), span(19, 22)),
	TypeHash160:      codes(span(1, 4)),
	TypePathSet:      codes(one(1)),
	TypeVector256:    codes(span(1, 5)),
	TypeHash192:      codes(span(1, 4)),
	TypeIssue:        codes(span(1, 4)),
	TypeXChainBridge: codes(one(1)),
	TypeCurrency:     codes(one(1), one(2)),
}

func isKnown(f FieldID) bool {
	s, ok := known[f.Type]
	return ok && s.has(f.Code)
}

// isVL reports whether a type's values carry a length prefix.
func isVL(t uint8) bool { return t == TypeBlob || t == TypeAccountID || t == TypeVector256 }

// TransactionTypes names the values of TransactionType.
var TransactionTypes = map[uint16]string{
	0: "Payment", 1: "EscrowCreate", 2: "EscrowFinish", 3: "AccountSet", 4: "EscrowCancel", 5: "SetRegularKey",
	7: "OfferCreate", 8: "OfferCancel", 10: "TicketCreate", 12: "SignerListSet", 13: "PaymentChannelCreate",
	14: "PaymentChannelFund", 15: "PaymentChannelClaim", 16: "CheckCreate", 17: "CheckCash", 18: "CheckCancel",
	19: "DepositPreauth", 20: "TrustSet", 21: "AccountDelete", 25: "NFTokenMint", 26: "NFTokenBurn",
	27: "NFTokenCreateOffer", 28: "NFTokenCancelOffer", 29: "NFTokenAcceptOffer", 30: "Clawback", 31: "AMMClawback",
	35: "AMMCreate", 36: "AMMDeposit", 37: "AMMWithdraw", 38: "AMMVote", 39: "AMMBid", 40: "AMMDelete",
	41: "XChainCreateClaimID", 42: "XChainCommit", 43: "XChainClaim", 44: "XChainAccountCreateCommit",
	45: "XChainAddClaimAttestation", 46: "XChainAddAccountCreateAttestation", 47: "XChainModifyBridge",
	48: "XChainCreateBridge", 49: "DIDSet", 50: "DIDDelete", 51: "OracleSet", 52: "OracleDelete",
	53: "LedgerStateFix", 54: "MPTokenIssuanceCreate", 55: "MPTokenIssuanceDestroy", 56: "MPTokenIssuanceSet",
	57: "MPTokenAuthorize", 58: "CredentialCreate", 59: "CredentialAccept", 60: "CredentialDelete",
	61: "NFTokenModify", 62: "PermissionedDomainSet", 63: "PermissionedDomainDelete", 64: "DelegateSet",
	65: "VaultCreate", 66: "VaultSet", 67: "VaultDelete", 68: "VaultDeposit", 69: "VaultWithdraw",
	70: "VaultClawback", 71: "Batch", 74: "LoanBrokerSet", 75: "LoanBrokerDelete", 76: "LoanBrokerCoverDeposit",
	77: "LoanBrokerCoverWithdraw", 78: "LoanBrokerCoverClawback", 80: "LoanSet", 81: "LoanDelete",
	82: "LoanManage", 84: "LoanPay", 85: "ConfidentialMPTConvert", 86: "ConfidentialMPTMergeInbox",
	87: "ConfidentialMPTConvertBack", 88: "ConfidentialMPTSend", 89: "ConfidentialMPTClawback",
	90: "SponsorshipTransfer", 91: "SponsorshipSet", 100: "EnableAmendment", 101: "SetFee", 102: "UNLModify",
}

var transactionTypeCodes = func() map[string]uint16 {
	m := make(map[string]uint16, len(TransactionTypes))
	for c, n := range TransactionTypes {
		m[n] = c
	}
	return m
}()

// Transaction type codes the pairings use.
const (
	TxPayment              = 0
	TxPaymentChannelCreate = 13
	TxPaymentChannelClaim  = 15
	txUNLModify            = 102
)

// The enumerations a decoded value must name.
var (
	transactionResults = codes(one(0), span(100, 105), span(121, 152), span(154, 197), one(199), one(200))
	ledgerEntryTypes   = map[uint16]bool{}
	permissionValues   = map[uint32]bool{}
)

func init() {
	for _, c := range []uint16{55, 67, 73, 78, 80, 83, 84, 97, 100, 102, 104, 105, 111, 112, 113, 114, 115, 116, 117, 120, 121, 126, 127, 128, 129, 130, 131, 132, 136, 137, 144} {
		ledgerEntryTypes[c] = true
	}
	// A permission is a transaction type plus one, or one of the granular
	// permissions 65537…65548.
	for t := range TransactionTypes {
		permissionValues[uint32(t)+1] = true
	}
	for p := uint32(65537); p <= 65548; p++ {
		permissionValues[p] = true
	}
}
