/// libFuzzer's entry point: one input per call. Always answers 0 (keep the input).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}
