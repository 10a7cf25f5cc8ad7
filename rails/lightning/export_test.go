package lightning

// ForgetVerified lets the external benchmark count one signature recovery
// per payment.
var ForgetVerified = forgetVerified
