"""GPU and accelerator wording: ECC, row remapping, DCGM, thermal, visibility, Neuron.

Xid numbers are parsed separately (tools.explain.xid_catalog); these signatures catch the words
around them and the reports that carry no Xid at all.
"""

from __future__ import annotations

from tools.explain.signature import TRIAGE_NODE, Matching, rx, sig, word
from tools.explain.xid_catalog import XID_PATTERN
from tools.signals import wording

ROW_REMAP = "nvidia-smi -q -d ROW_REMAPPER"
ECC = "nvidia-smi -q -d ECC"
XID_LOG = "dmesg -T | grep -iE 'xid|nvrm'"
DCGM_HEALTH = "dcgmi health -c -j"
THROTTLE = "nvidia-smi -q -d PERFORMANCE,TEMPERATURE"
NEURON = ("neuron-ls", "neuron-top", TRIAGE_NODE)

# fmt: off
SIGNATURES = (
    # § G.2 — the GPU disappears or stops answering
    sig(
        "gpu.fell_off_bus", "G.2", 5.0,
        "GPU fell off the PCIe bus (the Xid 79 family): a hardware fault",
        r"fall(?:en)? off the bus", r"fell off the (?:PCIe? )?bus", r"掉卡", r"GPU\s*掉了",
        checks=(TRIAGE_NODE, "nvidia-smi -L", XID_LOG),
    ),
    sig(
        "gpu.lost", "G.2", 4.0,
        "the driver lost contact with a GPU",
        r"GPU is lost", r"Unable to determine the device handle for GPU",
        r"GPU\s+[0-9a-f:.]+\s+(?:has been|was) removed", r"RmInitAdapter failed",
        checks=(TRIAGE_NODE, "nvidia-smi -L", XID_LOG),
    ),
    sig(
        "gpu.xid_word", "G.2", 2.5,
        "an Xid event is mentioned (NVIDIA driver error report)",
        word(r"XID(?:s)?(?:\s+errors?)?"), word("XidHardwareFailure"),
        matching=Matching(unless=XID_PATTERN), checks=(XID_LOG, TRIAGE_NODE),
    ),
    sig(
        "gpu.nvlink", "G.2", 3.0,
        "NVLink or NVSwitch errors (Xid 74 family or SXid)",
        r"NVLink\s+(?:error|errors|is down|link down|inactive|fatal)", word("SXid"),
        r"fabric ?manager", r"system not yet initialized",
        checks=("nvidia-smi nvlink -s", "nvidia-smi -q -d ROW_REMAPPER", TRIAGE_NODE),
    ),
    # § G — visibility and generic GPU trouble
    sig(
        "gpu.not_visible", "G", 3.5,
        "fewer GPUs are visible than the instance type has",
        r"No devices were found",
        r"only\s+\d\s+GPUs?\s+(?:are\s+)?(?:visible|detected|found|shown)",
        r"(?:only|just)\s+(?:lists?|shows?|sees?|detects?|finds?|reports?)\s+\d\s+GPUs?",
        r"\b\d\s+(?:of|out of)\s+8\s+GPUs?", r"GPUs?\s+(?:is\s+|are\s+)?missing",
        r"missing\s+GPUs?",
        *wording("gpu.count_mismatch"),
        r"(?:只有|只剩|只能看到|只识别到?|只显示|仅有|仅剩|仅识别到?|仅显示)\s*\d\s*个\s*GPU",
        r"GPU\s*(?:数量|个数)\s*不对",
        r"CUDA_ERROR_NO_DEVICE", r"no CUDA-capable device is detected",
        r"GPUs?\s+(?:\d\s+)?(?:is\s+|are\s+|was\s+|were\s+)?(?:not|no\s+longer|isn't|aren't|wasn't)"
        r"\s+(?:being\s+)?(?:visible|detected|found|listed|shown|showing\s+up|recogni[sz]ed|enumerated)",
        r"(?:shows?|lists?|sees?|detects?|finds?|reports?|advertis\w*|display\w*)\s+only\s+\d\s+"
        r"(?:of\s+(?:the\s+)?\d+\s+)?GPUs?",
        r"(?:can't|cannot|can\s+not|don't|doesn't|unable\s+to)\s+(?:see|find|detect)\s+"
        r"(?:all\s+|any\s+)?(?:the\s+|\d\s+|of\s+the\s+)*GPUs?",
        r"(?<![\d/])\d\s*/\s*8\s+GPUs?",
        r"(?:看不到|识别不到|检测不到|找不到|认不到|少了)\s*(?:\d\s*(?:张|块|个)\s*)?(?:GPU|显卡|卡)",
        r"(?:GPU|显卡)\s*(?:不可见|看不到|识别不到|检测不到|找不到|不见了|少了)",
        r"(?:只有|只剩|只能看到|只看到|只识别到?|只显示|只列出|仅有|仅剩|仅识别到?|仅显示)(?:了)?"
        r"\s*\d\s*(?:张|块)(?!\s*(?:盘|磁盘|硬盘))",
        checks=("nvidia-smi -L", TRIAGE_NODE, XID_LOG),
    ),
    sig(
        "gpu.count_hma", "F.3", 1.5,
        "a GPU-count mismatch makes the Health Monitoring Agent reboot the node",
        *wording("gpu.count_mismatch"),
        r"only\s+\d\s+GPUs?\s+(?:are\s+)?(?:visible|detected|found)",
    ),
    sig(
        "gpu.zh_fault", "G", 3.0,
        "the GPU itself is reported broken",
        r"GPU\s*(?:故障|坏了|报错|异常|挂了)", r"(?:显卡|卡)\s*(?:故障|坏了)",
        checks=(TRIAGE_NODE, "nvidia-smi -L", XID_LOG),
    ),
    sig(
        "gpu.cuda_oom", "G", 2.5,
        "GPU memory exhausted by the workload (usually not a node fault)",
        r"CUDA out of memory", r"OutOfMemoryError: CUDA", r"显存\s*(?:不足|不够|爆了|溢出|满)",
        checks=("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
    ),
    sig(
        "gpu.vram_zh", "G", 1.5,
        "GPU memory (显存) is mentioned",
        r"显存",
    ),
    sig(
        "gpu.illegal_access", "G.2", 2.0,
        "a CUDA fault in the application; check dmesg for Xid 13/31/43 on the same node",
        r"illegal memory access was encountered", r"unspecified launch failure",
        r"CUDA error: (?:an )?illegal instruction",
        checks=(XID_LOG,),
    ),
    # § G.3 — ECC
    sig(
        "gpu.ecc_uncorrectable", "G.3", 5.0,
        "uncorrectable (double-bit) ECC errors: isolate and replace the node",
        r"uncorrectable\s+(?:ECC|memory|DRAM|SRAM)", r"ECC\s+(?:error|errors)\b.{0,40}uncorrect",
        r"double[- ]bit\s+(?:ECC\s+)?errors?", word("DBE"), r"uncorrected\s+(?:ECC|volatile)",
        r"uncontained\s+(?:ECC\s+)?error", r"ecc[._]errors[._]uncorrected",
        r"不可(?:纠正|修复|恢复)的?\s*(?:ECC|显存)", r"ECC\s*(?:不可纠正|双比特)",
        r"(?:DRAM|SRAM)\s+Uncorrectable(?:\s+\w+)?\s*:\s*[1-9]",
        checks=(ECC, ROW_REMAP, TRIAGE_NODE),
    ),
    sig(
        "gpu.ecc_generic", "G.3", 2.5,
        "ECC errors are mentioned",
        r"ECC\s+(?:error|errors|fault|count)", r"(?:volatile|aggregate)\s+(?:SBE|DBE|ECC)",
        r"single[- ]bit\s+(?:ECC\s+)?errors?", r"ECC\s*(?:错误|报错|告警)",
        r"显存\s*(?:错误|故障|坏)",
        checks=(ECC, ROW_REMAP),
    ),
    # § G.1.a — row remapping
    sig(
        "gpu.remap_failure", "G.1.a", 6.0,
        "row remapping failed: the GPU has no spare rows left; replace the node",
        r"Remapping Failure Occurred\s*:?\s*Yes", r"remap(?:ping)?\s+fail(?:ed|ure)",
        r"remapped_rows\.failure\s*[:=,]?\s*(?:Yes|1)", r"(?:行)?重映射\s*失败",
        checks=(ROW_REMAP, TRIAGE_NODE),
    ),
    sig(
        "gpu.remap_pending", "G.1.a", 5.0,
        "a row remap is pending: a GPU reset (node reboot) is needed to apply it",
        r"Pending\s*:\s*Yes", r"remap(?:ping)?\s+(?:is\s+)?pending", r"pending\s+(?:row\s+)?remap",
        r"remapped_rows\.pending", r"重映射\s*(?:待处理|挂起|pending)",
        matching=Matching(context=rx(r"remap|ROW_REMAPPER|重映射")),
        checks=(ROW_REMAP, TRIAGE_NODE),
    ),
    sig(
        "gpu.row_remap", "G.1.a", 3.5,
        "row remapping is mentioned (the authoritative sign of GPU memory wear)",
        r"row[- ]?remap\w*", r"remapped[ _]rows", r"ROW_REMAPPER", r"行重映射",
        r"(?:page|pages)\s+retire\w*", r"retired\s+pages",
        checks=(ROW_REMAP,),
    ),
    # § G.1 / G.1.b — silent corruption and DCGM
    sig(
        "gpu.silent_nan", "G.1", 3.0,
        "NaN or silent wrong results on one node point at degraded GPU memory",
        r"loss\s+(?:is|became|becomes|goes|went|=|:)\s*(?:to\s+)?nan",
        r"\bNaN\b.{0,40}(?:loss|grad)",
        r"silent (?:data )?corruption", r"(?:loss|梯度|损失).{0,10}(?:变成|出现|是|为)\s*NaN",
        r"出现\s*NaN", r"(?:skipped|overflow).{0,30}\bnan\b",
        r"silent(?:ly)?\s+(?:\w+\s+)?NaNs?\b",
        r"(?:produc\w*|return\w*|output\w*|gives?|giving|got|getting|yield\w*|spits?\s+out"
        r"|turn\w*\s+(?:in)?to|becom\w*|went\s+to|goes\s+to)\s+(?:\w+\s+){0,2}?NaNs?\b",
        r"\bNaNs?\s+(?:values?\s+)?(?:in|on|from|appear\w*\s+in)\s+(?:the\s+)?"
        r"(?:loss|gradients?|outputs?|weights|activations|logits|results?)",
        r"\bNaN\s+(?:loss|gradients?|outputs?|results?|values?)",
        r"(?:loss|梯度|损失|输出|结果|训练)[^\n。，,]{0,12}?(?:变成|变为|变|出现|出|是|成了|全是|都是)\s*(?:了\s*)?NaN",
        r"(?:产生|得到|算出|跑出|冒出|输出)\s*(?:了\s*)?(?:一些|一堆|大量)?\s*NaN",
        checks=(ROW_REMAP, DCGM_HEALTH, "dcgmi diag -r 1"),
    ),
    sig(
        "gpu.dcgm_fail", "G.1.b", 5.0,
        "DCGM diagnostics or health checks reported a failure",
        r"DCGM[^\n]{0,80}\b(?:fail(?:ed|ure|s)?|error)", r"\|\s*Fail\b", r"DCGM_FR_\w+",
        r"dcgmi\s+diag[^\n]{0,80}\bfail", r"Diagnostic[^\n]{0,40}\bFail",
        r"DCGM.{0,20}(?:失败|报错)",
        r"policy violation",
        checks=(DCGM_HEALTH, "dcgmi diag -r 1", ROW_REMAP),
    ),
    sig(
        "gpu.dcgm", "G.1.b", 2.0,
        "DCGM is mentioned",
        word("DCGM"), r"dcgmi", r"dcgm-exporter",
        checks=(DCGM_HEALTH,),
    ),
    # § G.4 — thermal and power
    sig(
        "gpu.thermal", "G.4", 5.0,
        "the GPU is throttling for heat or power",
        r"thermal\s+(?:slowdown|throttl\w*|violation)",
        r"HW\s+(?:Thermal\s+|Power\s+Brake\s+)?Slowdown\s*:\s*Active",
        r"SW\s+(?:Thermal|Power)\s+(?:Slowdown|Cap)\s*:\s*Active",
        r"clocks?_(?:throttle|event)_reasons",
        r"over[- ]?temperature", r"GPU\s+(?:temp|temperature)\w*\s+(?:is\s+)?(?:high|above|exceed)",
        r"power\s+brake", r"(?:GPU|显卡).{0,10}(?:过热|温度过?高|降频)", r"(?:过热|降频)",
        checks=(THROTTLE, TRIAGE_NODE),
    ),
    sig(
        "gpu.hot_reading", "G.4", 4.5,
        "a GPU temperature reading at or above 85 °C, where clocks start to drop",
        r"(?:Current\s+Temp|temperature(?:\.gpu)?|GPU\s*temp|温度)[^\n\d]{0,30}?"
        r"(?<![\d.])(?:8[5-9]|9\d|1[01]\d)(?:\.\d+)?\s*(?:°\s*C|C\b|度|℃)",
        r"(?:exceed\w*|above|over|hit|reach\w*|超过|达到|到了)\s*(?<![\d.])(?:8[5-9]|9\d|1[01]\d)"
        r"\s*(?:°\s*C|C\b|度|℃)",
        checks=(THROTTLE, TRIAGE_NODE),
    ),
    sig(
        "gpu.telemetry", "G.4", 2.0,
        "GPU temperature, clock or throttle-reason telemetry (nvidia-smi)",
        r"temperature\.(?:gpu|memory)", r"clocks\.(?:current\.)?(?:sm|gr|graphics|mem|max\.\w+)",
        r"(?:hw|sw)_(?:thermal_|power_brake_)?(?:slowdown|power_cap)",
        r"Clocks (?:Event|Throttle) Reasons",
        r"GPU\s+(?:Current|Slowdown|Shutdown|Max Operating|T\.Limit|Target)\s+Temp",
        r"gpu_temp(?:_\w+)?", r"power\.(?:draw|limit)",
        r"(?:GPU|显卡|卡)[^\n。，,]{0,8}温度", r"温度\s*(?:很|太|过|偏|特别|比较)?\s*高",
        r"(?:SM|graphics|核心|GPU)\s*(?:的)?\s*(?:时钟|频率|主频)",
        r"(?:时钟|频率|主频)\s*(?:很低|偏低|只有|掉到|掉了|下降|降到|上不去)",
        r"\bSM\s+clocks?\b[^\n.]{0,30}(?:low|drop\w*|only|down)",
        checks=(THROTTLE, TRIAGE_NODE),
    ),
    # § G.5 — Trainium and Inferentia
    sig(
        "neuron.runtime", "G.5", 5.0,
        "the Neuron runtime or driver cannot use a Neuron device",
        r"NRT:\w+", r"TDRV:\w+", r"nrt_init", r"No neuron device",
        r"(?<![A-Za-z])NRT_[A-Z_]{4,}", r"nrt_\w+[^\n]{0,40}(?:fail\w*|error|status)",
        r"Neuron\s+runtime[^\n]{0,40}(?:unrecoverable|fatal|fail\w*|error)",
        r"neuron device[s]?\s+(?:not|missing|unavailable)",
        r"Could not open the nd\d+", r"/dev/neuron\d+", r"Neuron runtime cannot be initialized",
        r"Neuron Driver version", r"NERR_\w+", r"neuron\s*(?:设备|卡)\s*(?:不见|丢失|缺失|少了)",
        checks=NEURON,
    ),
    sig(
        "neuron.tools", "G.5", 2.5,
        "Neuron tools, devices or instance types are mentioned",
        r"neuron-(?:ls|top|monitor)", r"NeuronCores?", r"Trainium|Inferentia",
        word(r"trn[12]\w*|inf2\w*"),
        r"aws-neuronx?-(?:dkms|runtime|tools)", word("NCCOM"), word(r"nd\d{1,2}"),
        checks=NEURON,
    ),
)
# fmt: on
