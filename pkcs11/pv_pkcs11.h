/*
 * The PKCS#11 definitions the module is written against: p11-kit's pkcs11.h
 * (Debian's libp11-kit-dev, the OASIS names; version 2.40 in bookworm) and, when
 * that header predates 3.0, what PKCS#11 3.0 added and the module uses - the
 * interfaces (C_GetInterfaceList, C_GetInterface, CK_INTERFACE,
 * CK_FUNCTION_LIST_3_0) and the 3.0 functions' types, written out from the OASIS
 * standard ("PKCS #11 Cryptographic Token Interface Base Specification Version
 * 3.0", section 5 and its pkcs11f.h function order).
 */
#ifndef PV_PKCS11_H
#define PV_PKCS11_H

#include <p11-kit/pkcs11.h>

#if CRYPTOKI_VERSION_MAJOR < 3

#define CKF_INTERFACE_FORK_SAFE 0x00000001UL

typedef struct CK_INTERFACE {
    CK_CHAR *pInterfaceName;
    CK_VOID_PTR pFunctionList;
    CK_FLAGS flags;
} CK_INTERFACE;
typedef CK_INTERFACE *CK_INTERFACE_PTR;
typedef CK_INTERFACE_PTR *CK_INTERFACE_PTR_PTR;

/* The functions PKCS#11 3.0 added, in the order of CK_FUNCTION_LIST_3_0. */
#define PV_PKCS11_3_FUNCTIONS(X) \
    X(C_GetInterfaceList, (CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)) \
    X(C_GetInterface, (CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion, CK_INTERFACE_PTR_PTR ppInterface, \
                       CK_FLAGS flags)) \
    X(C_LoginUser, (CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen, \
                    CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen)) \
    X(C_SessionCancel, (CK_SESSION_HANDLE hSession, CK_FLAGS flags)) \
    X(C_MessageEncryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
    X(C_EncryptMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                         CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen, CK_BYTE_PTR pPlaintext, \
                         CK_ULONG ulPlaintextLen, CK_BYTE_PTR pCiphertext, CK_ULONG_PTR pulCiphertextLen)) \
    X(C_EncryptMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                              CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen)) \
    X(C_EncryptMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                             CK_BYTE_PTR pPlaintextPart, CK_ULONG ulPlaintextPartLen, CK_BYTE_PTR pCiphertextPart, \
                             CK_ULONG_PTR pulCiphertextPartLen, CK_FLAGS flags)) \
    X(C_MessageEncryptFinal, (CK_SESSION_HANDLE hSession)) \
    X(C_MessageDecryptInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
    X(C_DecryptMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                         CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen, CK_BYTE_PTR pCiphertext, \
                         CK_ULONG ulCiphertextLen, CK_BYTE_PTR pPlaintext, CK_ULONG_PTR pulPlaintextLen)) \
    X(C_DecryptMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                              CK_BYTE_PTR pAssociatedData, CK_ULONG ulAssociatedDataLen)) \
    X(C_DecryptMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                             CK_BYTE_PTR pCiphertextPart, CK_ULONG ulCiphertextPartLen, CK_BYTE_PTR pPlaintextPart, \
                             CK_ULONG_PTR pulPlaintextPartLen, CK_FLAGS flags)) \
    X(C_MessageDecryptFinal, (CK_SESSION_HANDLE hSession)) \
    X(C_MessageSignInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
    X(C_SignMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, CK_BYTE_PTR pData, \
                      CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)) \
    X(C_SignMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen)) \
    X(C_SignMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                          CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, CK_ULONG_PTR pulSignatureLen)) \
    X(C_MessageSignFinal, (CK_SESSION_HANDLE hSession)) \
    X(C_MessageVerifyInit, (CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)) \
    X(C_VerifyMessage, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                        CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)) \
    X(C_VerifyMessageBegin, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen)) \
    X(C_VerifyMessageNext, (CK_SESSION_HANDLE hSession, CK_VOID_PTR pParameter, CK_ULONG ulParameterLen, \
                            CK_BYTE_PTR pData, CK_ULONG ulDataLen, CK_BYTE_PTR pSignature, CK_ULONG ulSignatureLen)) \
    X(C_MessageVerifyFinal, (CK_SESSION_HANDLE hSession))

#define PV_DECLARE_3(name, arguments) \
    typedef CK_RV (*CK_##name) arguments; \
    CK_RV name arguments;
PV_PKCS11_3_FUNCTIONS(PV_DECLARE_3)
#undef PV_DECLARE_3

/* CK_FUNCTION_LIST_3_0: the 2.40 list, then the functions 3.0 added. */
typedef struct CK_FUNCTION_LIST_3_0 {
    CK_VERSION version;
#define PV_MEMBER(name) CK_##name name;
#define PV_MEMBER_3(name, arguments) CK_##name name;
    PV_MEMBER(C_Initialize) PV_MEMBER(C_Finalize) PV_MEMBER(C_GetInfo) PV_MEMBER(C_GetFunctionList)
    PV_MEMBER(C_GetSlotList) PV_MEMBER(C_GetSlotInfo) PV_MEMBER(C_GetTokenInfo) PV_MEMBER(C_GetMechanismList)
    PV_MEMBER(C_GetMechanismInfo) PV_MEMBER(C_InitToken) PV_MEMBER(C_InitPIN) PV_MEMBER(C_SetPIN)
    PV_MEMBER(C_OpenSession) PV_MEMBER(C_CloseSession) PV_MEMBER(C_CloseAllSessions) PV_MEMBER(C_GetSessionInfo)
    PV_MEMBER(C_GetOperationState) PV_MEMBER(C_SetOperationState) PV_MEMBER(C_Login) PV_MEMBER(C_Logout)
    PV_MEMBER(C_CreateObject) PV_MEMBER(C_CopyObject) PV_MEMBER(C_DestroyObject) PV_MEMBER(C_GetObjectSize)
    PV_MEMBER(C_GetAttributeValue) PV_MEMBER(C_SetAttributeValue) PV_MEMBER(C_FindObjectsInit)
    PV_MEMBER(C_FindObjects) PV_MEMBER(C_FindObjectsFinal) PV_MEMBER(C_EncryptInit) PV_MEMBER(C_Encrypt)
    PV_MEMBER(C_EncryptUpdate) PV_MEMBER(C_EncryptFinal) PV_MEMBER(C_DecryptInit) PV_MEMBER(C_Decrypt)
    PV_MEMBER(C_DecryptUpdate) PV_MEMBER(C_DecryptFinal) PV_MEMBER(C_DigestInit) PV_MEMBER(C_Digest)
    PV_MEMBER(C_DigestUpdate) PV_MEMBER(C_DigestKey) PV_MEMBER(C_DigestFinal) PV_MEMBER(C_SignInit)
    PV_MEMBER(C_Sign) PV_MEMBER(C_SignUpdate) PV_MEMBER(C_SignFinal) PV_MEMBER(C_SignRecoverInit)
    PV_MEMBER(C_SignRecover) PV_MEMBER(C_VerifyInit) PV_MEMBER(C_Verify) PV_MEMBER(C_VerifyUpdate)
    PV_MEMBER(C_VerifyFinal) PV_MEMBER(C_VerifyRecoverInit) PV_MEMBER(C_VerifyRecover)
    PV_MEMBER(C_DigestEncryptUpdate) PV_MEMBER(C_DecryptDigestUpdate) PV_MEMBER(C_SignEncryptUpdate)
    PV_MEMBER(C_DecryptVerifyUpdate) PV_MEMBER(C_GenerateKey) PV_MEMBER(C_GenerateKeyPair) PV_MEMBER(C_WrapKey)
    PV_MEMBER(C_UnwrapKey) PV_MEMBER(C_DeriveKey) PV_MEMBER(C_SeedRandom) PV_MEMBER(C_GenerateRandom)
    PV_MEMBER(C_GetFunctionStatus) PV_MEMBER(C_CancelFunction) PV_MEMBER(C_WaitForSlotEvent)
    PV_PKCS11_3_FUNCTIONS(PV_MEMBER_3)
#undef PV_MEMBER
#undef PV_MEMBER_3
} CK_FUNCTION_LIST_3_0;

#endif /* CRYPTOKI_VERSION_MAJOR < 3 */

#endif
