package xrpl

import "strconv"

// names are the field names of the XRPL definitions (ripple-binary-codec's
// definitions.json) for the fields a transaction commonly carries. A named
// field the table lacks is shown as "Field<type>_<code>" by Name, never
// dropped.
var names = map[FieldID]string{}

func init() {
	add := func(t uint8, list map[uint8]string) {
		for c, n := range list {
			names[FieldID{t, c}] = n
		}
	}
	add(TypeUInt16, map[uint8]string{1: "LedgerEntryType", 2: "TransactionType", 3: "SignerWeight", 4: "TransferFee",
		5: "TradingFee", 6: "DiscountedFee", 16: "Version", 21: "LedgerFixType"})
	add(TypeUInt32, map[uint8]string{1: "NetworkID", 2: "Flags", 3: "SourceTag", 4: "Sequence", 5: "PreviousTxnLgrSeq",
		6: "LedgerSequence", 7: "CloseTime", 8: "ParentCloseTime", 9: "SigningTime", 10: "Expiration",
		11: "TransferRate", 12: "WalletSize", 13: "OwnerCount", 14: "DestinationTag", 15: "LastUpdateTime",
		16: "HighQualityIn", 17: "HighQualityOut", 18: "LowQualityIn", 19: "LowQualityOut", 20: "QualityIn",
		21: "QualityOut", 22: "StampEscrow", 23: "BondAmount", 24: "LoadFee", 25: "OfferSequence",
		26: "FirstLedgerSequence", 27: "LastLedgerSequence", 28: "TransactionIndex", 29: "OperationLimit",
		30: "ReferenceFeeUnits", 31: "ReserveBase", 32: "ReserveIncrement", 33: "SetFlag", 34: "ClearFlag",
		35: "SignerQuorum", 36: "CancelAfter", 37: "FinishAfter", 38: "SignerListID", 39: "SettleDelay",
		40: "TicketCount", 41: "TicketSequence", 42: "NFTokenTaxon", 43: "MintedNFTokens", 44: "BurnedNFTokens",
		48: "VoteWeight", 50: "FirstNFTokenSequence", 51: "OracleDocumentID", 52: "PermissionValue"})
	add(TypeUInt64, map[uint8]string{1: "IndexNext", 2: "IndexPrevious", 3: "BookNode", 4: "OwnerNode", 5: "BaseFee",
		6: "ExchangeRate", 7: "LowNode", 8: "HighNode", 9: "DestinationNode", 10: "Cookie", 11: "ServerVersion",
		12: "NFTokenOfferNode", 13: "EmitBurden", 19: "ReferenceCount", 20: "XChainClaimID",
		21: "XChainAccountCreateCount", 22: "XChainAccountClaimCount", 23: "AssetPrice", 24: "MaximumAmount",
		25: "OutstandingAmount", 26: "MPTAmount", 27: "IssuerNode", 28: "SubjectNode", 29: "LockedAmount"})
	add(TypeHash128, map[uint8]string{1: "EmailHash"})
	add(TypeHash160, map[uint8]string{1: "TakerPaysCurrency", 2: "TakerPaysIssuer", 3: "TakerGetsCurrency", 4: "TakerGetsIssuer"})
	add(TypeHash192, map[uint8]string{1: "MPTokenIssuanceID"})
	add(TypeHash256, map[uint8]string{1: "LedgerHash", 2: "ParentHash", 3: "TransactionHash", 4: "AccountHash",
		5: "PreviousTxnID", 6: "LedgerIndex", 7: "WalletLocator", 8: "RootIndex", 9: "AccountTxnID", 10: "NFTokenID",
		11: "EmitParentTxnID", 12: "EmitNonce", 13: "EmitHookHash", 14: "AMMID", 16: "BookDirectory",
		17: "InvoiceID", 18: "Nickname", 19: "Amendment", 21: "Digest", 22: "Channel", 23: "ConsensusHash",
		24: "CheckID", 25: "ValidatedHash", 26: "PreviousPageMin", 27: "NextPageMin", 28: "NFTokenBuyOffer",
		29: "NFTokenSellOffer", 34: "DomainID"})
	add(TypeAmount, map[uint8]string{1: "Amount", 2: "Balance", 3: "LimitAmount", 4: "TakerPays", 5: "TakerGets",
		6: "LowLimit", 7: "HighLimit", 8: "Fee", 9: "SendMax", 10: "DeliverMin", 11: "Amount2", 12: "BidMin",
		13: "BidMax", 16: "MinimumOffer", 17: "RippleEscrow", 18: "DeliveredAmount", 19: "NFTokenBrokerFee",
		22: "BaseFeeDrops", 23: "ReserveBaseDrops", 24: "ReserveIncrementDrops", 25: "LPTokenOut",
		26: "LPTokenIn", 27: "EPrice", 28: "Price", 29: "SignatureReward", 30: "MinAccountCreateAmount",
		31: "LPTokenBalance", 34: "FeeAmountDelta"})
	add(TypeBlob, map[uint8]string{1: "PublicKey", 2: "MessageKey", 3: "SigningPubKey", 4: "TxnSignature", 5: "URI",
		6: "Signature", 7: "Domain", 8: "FundCode", 9: "RemoveCode", 10: "ExpireCode", 11: "CreateCode",
		12: "MemoType", 13: "MemoData", 14: "MemoFormat", 16: "Fulfillment", 17: "Condition",
		18: "MasterSignature", 19: "UNLModifyValidator", 20: "ValidatorToDisable", 21: "ValidatorToReEnable",
		26: "DIDDocument", 27: "Data", 28: "AssetClass", 29: "Provider"})
	add(TypeAccountID, map[uint8]string{1: "Account", 2: "Owner", 3: "Destination", 4: "Issuer", 5: "Authorize",
		6: "Unauthorize", 8: "RegularKey", 9: "NFTokenMinter", 10: "EmitCallback", 11: "Holder",
		18: "OtherChainSource", 19: "OtherChainDestination", 20: "AttestationSignerAccount",
		21: "AttestationRewardAccount", 22: "LockingChainDoor", 23: "IssuingChainDoor", 24: "Subject"})
	add(TypeSTObject, map[uint8]string{1: "ObjectEndMarker", 2: "TransactionMetaData", 3: "CreatedNode",
		4: "DeletedNode", 5: "ModifiedNode", 6: "PreviousFields", 7: "FinalFields", 8: "NewFields",
		9: "TemplateEntry", 10: "Memo", 11: "SignerEntry", 12: "NFToken", 13: "EmitDetails", 16: "Signer",
		18: "Majority", 19: "DisabledValidator"})
	add(TypeSTArray, map[uint8]string{1: "ArrayEndMarker", 3: "Signers", 4: "SignerEntries", 5: "Template",
		6: "Necessary", 7: "Sufficient", 8: "AffectedNodes", 9: "Memos", 10: "NFTokens", 16: "Majorities",
		17: "DisabledValidators"})
	add(TypeUInt8, map[uint8]string{1: "CloseResolution", 2: "Method", 3: "TransactionResult", 4: "Scale",
		5: "AssetScale", 16: "TickSize", 17: "UNLModifyDisabling", 19: "WasLockingChainSend"})
	add(TypePathSet, map[uint8]string{1: "Paths"})
	add(TypeVector256, map[uint8]string{1: "Indexes", 2: "Hashes", 3: "Amendments", 4: "NFTokenOffers", 5: "CredentialIDs"})
	add(TypeIssue, map[uint8]string{1: "LockingChainIssue", 2: "IssuingChainIssue", 3: "Asset", 4: "Asset2"})
	add(TypeXChainBridge, map[uint8]string{1: "XChainBridge"})
	add(TypeCurrency, map[uint8]string{1: "BaseAsset", 2: "QuoteAsset"})
	for id, n := range names {
		byName[n] = id
	}
}

var byName = map[string]FieldID{}

// Name is the field's definitions name, or "Field<type>_<code>" for one the
// table does not name.
func (id FieldID) Name() string {
	if n, ok := names[id]; ok {
		return n
	}
	return "Field" + strconv.Itoa(int(id.Type)) + "_" + strconv.Itoa(int(id.Code))
}

// FieldByName returns the field a definitions name names.
func FieldByName(name string) (FieldID, bool) {
	id, ok := byName[name]
	return id, ok
}
