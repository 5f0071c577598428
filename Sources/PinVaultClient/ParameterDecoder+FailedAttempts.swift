import PinVaultProtocol

extension ParameterDecoder {
    /// `failedAttemptsCleared` of a reply to a call that checked a PIN: the wrong PINs
    /// its right PIN cleared. A daemon that predates it leaves it out: 0.
    func failedAttemptsCleared() throws(ParameterError) -> Int {
        Int(try int("failedAttemptsCleared", required: false, range: 0...Int64(Int32.max)) ?? 0)
    }
}
