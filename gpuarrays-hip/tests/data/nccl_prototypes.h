/* The NCCL C API declarations that gpuarrays-hip's collective table calls, copied verbatim
 * from NVIDIA's and AMD's published headers, for gpuarrays-hip/tests/nccl_header.rs, which
 * compares the FFI table of gpuarrays-hip/src/platform/nccl_api.rs (used for both NCCL and
 * RCCL) with each section below.
 *
 * Section 1: repository NVIDIA/nccl, file src/nccl.h.in (the template of the installed
 * nccl.h), commit 5d3ab08b69754cb863ab1bf6e3fb6f7612bb725b, 2023-03-01, NCCL 2.17.1-1
 * (Copyright (c) 2015-2021, NVIDIA CORPORATION; BSD-3-Clause).
 *
 * Section 2: repository ROCm/rccl, file src/nccl.h.in (the template of the installed
 * rccl/rccl.h), commit 8de178325e73d5f4ced580ca64bdcc33a718b40f (the version stored in the
 * public-repository index this was copied from; that index gives no commit date. The header
 * declares ncclCommInitRankScalable and ncclSimInfo_v22200, so it follows NCCL 2.22 or
 * later; it defines RCCL_BFLOAT16 and RCCL_FLOAT8). (Copyright (c) 2015-2021, NVIDIA
 * CORPORATION; modifications Copyright (c) 2019-2023 Advanced Micro Devices, Inc. and
 * Microsoft Corporation; BSD-3-Clause.)
 *
 * Kept, in each header's order: NCCL_UNIQUE_ID_BYTES and the ncclUniqueId typedef, the enums
 * ncclResult_t, ncclRedOp_t (with the ncclRedOp_dummy_t it refers to) and ncclDataType_t,
 * and the prototypes of ncclGetVersion, ncclGetUniqueId, ncclCommInitRank, ncclCommDestroy,
 * ncclGetErrorString, ncclGetLastError, ncclReduce, ncclBroadcast, ncclAllReduce,
 * ncclReduceScatter, ncclAllGather, ncclSend, ncclRecv, ncclGroupStart and ncclGroupEnd.
 * Dropped: every other declaration; the comment blocks between the kept lines (RCCL's
 * Doxygen blocks and its "@cond include_hidden" / "@endcond" markers); the profiling aliases
 * declared after each function (pncclGetVersion, ...). Comments inside a kept declaration
 * (RCCL's trailing "!<" notes) are kept. Neither header marks these prototypes with
 * __attribute__ or an NCCL_API macro; the only difference between the two sections' function
 * declarations is the stream type: cudaStream_t (NVIDIA) and hipStream_t (RCCL), both
 * opaque pointers. NVIDIA's ncclBfloat16 is declared under #if defined(__CUDA_BF16_TYPES_EXIST__),
 * kept as written. Types not copied: typedef struct ncclComm* ncclComm_t (both headers);
 * the C enums are int-sized (ncclMaxRedOp keeps ncclRedOp_t as large as int).
 */

/* ==== NVIDIA/nccl 5d3ab08b69754cb863ab1bf6e3fb6f7612bb725b src/nccl.h.in ==== */

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

typedef enum { ncclSuccess                 =  0,
               ncclUnhandledCudaError      =  1,
               ncclSystemError             =  2,
               ncclInternalError           =  3,
               ncclInvalidArgument         =  4,
               ncclInvalidUsage            =  5,
               ncclRemoteError             =  6,
               ncclInProgress              =  7,
               ncclNumResults              =  8 } ncclResult_t;

ncclResult_t  ncclGetVersion(int *version);

ncclResult_t  ncclGetUniqueId(ncclUniqueId* uniqueId);

ncclResult_t  ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank);

ncclResult_t  ncclCommDestroy(ncclComm_t comm);

const char*  ncclGetErrorString(ncclResult_t result);

const char*  ncclGetLastError(ncclComm_t comm);

typedef enum { ncclNumOps_dummy = 5 } ncclRedOp_dummy_t;
typedef enum { ncclSum        = 0,
               ncclProd       = 1,
               ncclMax        = 2,
               ncclMin        = 3,
               ncclAvg        = 4,
               /* ncclNumOps: The number of built-in ncclRedOp_t values. Also
                * serves as the least possible value for dynamic ncclRedOp_t's
                * as constructed by ncclRedOpCreate*** functions. */
               ncclNumOps     = 5,
               /* ncclMaxRedOp: The largest valid value for ncclRedOp_t.
                * It is defined to be the largest signed value (since compilers
                * are permitted to use signed enums) that won't grow
                * sizeof(ncclRedOp_t) when compared to previous NCCL versions to
                * maintain ABI compatibility. */
               ncclMaxRedOp   = 0x7fffffff>>(32-8*sizeof(ncclRedOp_dummy_t))
             } ncclRedOp_t;

typedef enum { ncclInt8       = 0, ncclChar       = 0,
               ncclUint8      = 1,
               ncclInt32      = 2, ncclInt        = 2,
               ncclUint32     = 3,
               ncclInt64      = 4,
               ncclUint64     = 5,
               ncclFloat16    = 6, ncclHalf       = 6,
               ncclFloat32    = 7, ncclFloat      = 7,
               ncclFloat64    = 8, ncclDouble     = 8,
#if defined(__CUDA_BF16_TYPES_EXIST__)
               ncclBfloat16   = 9,
               ncclNumTypes   = 10
#else
               ncclNumTypes   = 9
#endif
} ncclDataType_t;

ncclResult_t  ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
    ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
    ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
    ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclReduceScatter(const void* sendbuff, void* recvbuff,
    size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
    cudaStream_t stream);

ncclResult_t  ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
    ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
    ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
    ncclComm_t comm, cudaStream_t stream);

ncclResult_t  ncclGroupStart();

ncclResult_t  ncclGroupEnd();

/* ==== ROCm/rccl 8de178325e73d5f4ced580ca64bdcc33a718b40f src/nccl.h.in ==== */

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[NCCL_UNIQUE_ID_BYTES]; /*!< Opaque array>*/} ncclUniqueId;

  typedef enum {
    ncclSuccess                 =  0, /*!< No error */
    ncclUnhandledCudaError      =  1, /*!< Unhandled HIP error */
    ncclSystemError             =  2, /*!< Unhandled system error */
    ncclInternalError           =  3, /*!< Internal Error - Please report to RCCL developers */
    ncclInvalidArgument         =  4, /*!< Invalid argument */
    ncclInvalidUsage            =  5, /*!< Invalid usage */
    ncclRemoteError             =  6, /*!< Remote process exited or there was a network error */
    ncclInProgress              =  7, /*!< RCCL operation in progress */
    ncclNumResults              =  8  /*!< Number of result types */
  } ncclResult_t;

ncclResult_t  ncclGetVersion(int *version);

ncclResult_t  ncclGetUniqueId(ncclUniqueId* uniqueId);

ncclResult_t  ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank);

ncclResult_t  ncclCommDestroy(ncclComm_t comm);

const char*  ncclGetErrorString(ncclResult_t result);

const char*  ncclGetLastError(ncclComm_t comm);

typedef enum { ncclNumOps_dummy = 5 } ncclRedOp_dummy_t;

typedef enum { ncclSum        = 0, /*!< Sum */
               ncclProd       = 1, /*!< Product */
               ncclMax        = 2, /*!< Max */
               ncclMin        = 3, /*!< Min */
               ncclAvg        = 4, /*!< Average */
               ncclNumOps     = 5, /*!< Number of built-in reduction ops */
               ncclMaxRedOp   = 0x7fffffff>>(32-8*sizeof(ncclRedOp_dummy_t)) /*!< Largest value for ncclRedOp_t */
             } ncclRedOp_t;

typedef enum { ncclInt8       = 0, ncclChar       = 0,
               ncclUint8      = 1,
               ncclInt32      = 2, ncclInt        = 2,
               ncclUint32     = 3,
               ncclInt64      = 4,
               ncclUint64     = 5,
               ncclFloat16    = 6, ncclHalf       = 6,
               ncclFloat32    = 7, ncclFloat      = 7,
               ncclFloat64    = 8, ncclDouble     = 8,
               ncclBfloat16   = 9,
               ncclFloat8e4m3 = 10,
               ncclFloat8e5m2 = 11,
               ncclNumTypes   = 12
} ncclDataType_t;

ncclResult_t  ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
    ncclRedOp_t op, int root, ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
    ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count,
    ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclReduceScatter(const void* sendbuff, void* recvbuff,
    size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
    hipStream_t stream);

ncclResult_t  ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
    ncclDataType_t datatype, ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer,
    ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
    ncclComm_t comm, hipStream_t stream);

ncclResult_t  ncclGroupStart();

ncclResult_t  ncclGroupEnd();
