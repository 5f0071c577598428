/*
 * The module's life (layer 5, docs/ARCHITECTURE.md, "The C door"): C_Initialize,
 * C_Finalize, C_GetInfo, the function lists and interfaces. The lock, the fork
 * check and the connection are pv_core.h's; the slots and sessions are reset here.
 */
#include <string.h>

#include "pv_core.h"
#include "pv_sessions.h"
#include "pv_slots.h"

PV_EXPORT CK_RV C_Initialize(CK_VOID_PTR pInitArgs)
{
    if (pInitArgs != NULL) {
        CK_C_INITIALIZE_ARGS *args = pInitArgs;
        if (args->pReserved != NULL)
            return CKR_ARGUMENTS_BAD;
        bool some = args->CreateMutex != NULL || args->DestroyMutex != NULL || args->LockMutex != NULL ||
                    args->UnlockMutex != NULL;
        bool all = args->CreateMutex != NULL && args->DestroyMutex != NULL && args->LockMutex != NULL &&
                   args->UnlockMutex != NULL;
        if (some && !all)
            return CKR_ARGUMENTS_BAD;
        /* The module locks with the system's mutexes; it cannot use only the application's. */
        if (all && !(args->flags & CKF_OS_LOCKING_OK))
            return CKR_CANT_LOCK;
    }
    CK_RV rv = pv_core_start();
    if (rv != CKR_OK)
        return rv;
    pv_slots_reset();
    pv_sessions_reset();
    pv_core_started();
    return CKR_OK;
}

PV_EXPORT CK_RV C_Finalize(CK_VOID_PTR pReserved)
{
    if (pReserved != NULL)
        return CKR_ARGUMENTS_BAD;
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    /* Every login ends (Lock), then the connection, which ends any bound session left. */
    pv_logout_all();
    pv_core_stop();
    pv_slots_reset();
    pv_sessions_reset();
    pv_leave();
    return CKR_OK;
}

PV_EXPORT CK_RV C_GetInfo(CK_INFO_PTR pInfo)
{
    CK_RV rv = pv_enter();
    if (rv != CKR_OK)
        return rv;
    if (pInfo == NULL)
        return pv_done(CKR_ARGUMENTS_BAD);
    memset(pInfo, 0, sizeof *pInfo);
    pInfo->cryptokiVersion.major = 3;
    pInfo->cryptokiVersion.minor = 0;
    pv_pad(pInfo->manufacturerID, sizeof pInfo->manufacturerID, "PinVault");
    pv_pad(pInfo->libraryDescription, sizeof pInfo->libraryDescription, "PinVault PKCS#11 module");
    pInfo->libraryVersion.major = PINVAULT_VERSION_MAJOR;
    pInfo->libraryVersion.minor = PINVAULT_VERSION_MINOR;
    return pv_done(CKR_OK);
}

/* The function lists: every entry point, the 3.0 ones after the 2.40 ones. */
#define PV_FUNCTIONS_2 \
    C_Initialize, C_Finalize, C_GetInfo, C_GetFunctionList, C_GetSlotList, C_GetSlotInfo, C_GetTokenInfo, \
    C_GetMechanismList, C_GetMechanismInfo, C_InitToken, C_InitPIN, C_SetPIN, C_OpenSession, C_CloseSession, \
    C_CloseAllSessions, C_GetSessionInfo, C_GetOperationState, C_SetOperationState, C_Login, C_Logout, \
    C_CreateObject, C_CopyObject, C_DestroyObject, C_GetObjectSize, C_GetAttributeValue, C_SetAttributeValue, \
    C_FindObjectsInit, C_FindObjects, C_FindObjectsFinal, C_EncryptInit, C_Encrypt, C_EncryptUpdate, \
    C_EncryptFinal, C_DecryptInit, C_Decrypt, C_DecryptUpdate, C_DecryptFinal, C_DigestInit, C_Digest, \
    C_DigestUpdate, C_DigestKey, C_DigestFinal, C_SignInit, C_Sign, C_SignUpdate, C_SignFinal, \
    C_SignRecoverInit, C_SignRecover, C_VerifyInit, C_Verify, C_VerifyUpdate, C_VerifyFinal, \
    C_VerifyRecoverInit, C_VerifyRecover, C_DigestEncryptUpdate, C_DecryptDigestUpdate, C_SignEncryptUpdate, \
    C_DecryptVerifyUpdate, C_GenerateKey, C_GenerateKeyPair, C_WrapKey, C_UnwrapKey, C_DeriveKey, \
    C_SeedRandom, C_GenerateRandom, C_GetFunctionStatus, C_CancelFunction, C_WaitForSlotEvent

static CK_FUNCTION_LIST function_list_2 = {{2, 40}, PV_FUNCTIONS_2};

static CK_FUNCTION_LIST_3_0 function_list_3 = {
    {3, 0}, PV_FUNCTIONS_2,
    C_GetInterfaceList, C_GetInterface, C_LoginUser, C_SessionCancel, C_MessageEncryptInit, C_EncryptMessage,
    C_EncryptMessageBegin, C_EncryptMessageNext, C_MessageEncryptFinal, C_MessageDecryptInit, C_DecryptMessage,
    C_DecryptMessageBegin, C_DecryptMessageNext, C_MessageDecryptFinal, C_MessageSignInit, C_SignMessage,
    C_SignMessageBegin, C_SignMessageNext, C_MessageSignFinal, C_MessageVerifyInit, C_VerifyMessage,
    C_VerifyMessageBegin, C_VerifyMessageNext, C_MessageVerifyFinal,
};

static CK_CHAR interface_name[] = "PKCS 11";

/* The 3.0 interface first: the default. Neither is fork-safe in 3.0's sense (a child must C_Initialize). */
static CK_INTERFACE interfaces[] = {
    {interface_name, &function_list_3, 0},
    {interface_name, &function_list_2, 0},
};
#define INTERFACE_COUNT (sizeof interfaces / sizeof interfaces[0])

PV_EXPORT CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR ppFunctionList)
{
    if (ppFunctionList == NULL)
        return CKR_ARGUMENTS_BAD;
    *ppFunctionList = &function_list_2;
    return CKR_OK;
}

PV_EXPORT CK_RV C_GetInterfaceList(CK_INTERFACE_PTR pInterfacesList, CK_ULONG_PTR pulCount)
{
    if (pulCount == NULL)
        return CKR_ARGUMENTS_BAD;
    if (pInterfacesList == NULL) {
        *pulCount = INTERFACE_COUNT;
        return CKR_OK;
    }
    if (*pulCount < INTERFACE_COUNT) {
        *pulCount = INTERFACE_COUNT;
        return CKR_BUFFER_TOO_SMALL;
    }
    memcpy(pInterfacesList, interfaces, sizeof interfaces);
    *pulCount = INTERFACE_COUNT;
    return CKR_OK;
}

PV_EXPORT CK_RV C_GetInterface(CK_UTF8CHAR_PTR pInterfaceName, CK_VERSION_PTR pVersion,
                               CK_INTERFACE_PTR_PTR ppInterface, CK_FLAGS flags)
{
    if (ppInterface == NULL)
        return CKR_ARGUMENTS_BAD;
    for (size_t i = 0; i < INTERFACE_COUNT; i++) {
        const CK_VERSION *version = interfaces[i].pFunctionList; /* every list starts with its version */
        if (pInterfaceName != NULL && strcmp((const char *)pInterfaceName, (const char *)interface_name) != 0)
            continue;
        if (pVersion != NULL && (pVersion->major != version->major || pVersion->minor != version->minor))
            continue;
        if ((interfaces[i].flags & flags) != flags)
            continue;
        *ppInterface = &interfaces[i];
        return CKR_OK;
    }
    return CKR_ARGUMENTS_BAD;
}
