"""Tiny, randomly initialised checkpoints of real VLM architectures, built offline at test time.

Qwen2.5-VL (``Qwen2_5_VLForConditionalGeneration`` + ``Qwen2_5_VLProcessor``), LLaVA
(``LlavaForConditionalGeneration`` + ``LlavaProcessor``) and Idefics2
(``Idefics2ForConditionalGeneration`` + ``Idefics2Processor``), about 1 MB each, from
``transformers`` configs and ``save_pretrained``, with a byte-level BPE tokenizer trained by
``tokenizers`` on a few sentences (so any prompt encodes) plus each family's special tokens and chat
template. Seeded: the same weights every build. No download: lmms-eval's real adapters load them by
path (``--model qwen2_5_vl --model_args pretrained=<dir>``).
"""

from pathlib import Path

QWEN_SPECIAL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
# weights drawn wider than transformers' 0.02 so that greedy answers depend on the prompt and image
INIT = 1.0
LLAVA_SPECIAL = ["<unk>", "<s>", "</s>", "<pad>", "<image>"]
CORPUS = [
    "You are an experienced radiologist. Look at the "
    "image and answer the multiple-choice question.",
    "Reply with exactly one capital letter (A, B, C, D, or E) and nothing else.",
    "Options: A. B. C. D. E. Cannot determine from the image. yes no Answer:",
    "Which finding is present? Left right upper lower lobe chest x-ray CT MRI ultrasound.",
    "Is there evidence of pneumothorax, effusion, fracture, nodule, mass or consolidation?",
    "0 1 2 3 4 5 6 7 8 9 ( ) [ ] : ; , . ? ! - ' \" / \n",
]
QWEN_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{% if message['content'] "
    "is string %}{{ message['content'] }}{% else %}{% for content in message['content'] "
    "%}{% if content['type'] == 'image' or 'image' in content or 'image_url' in content "
    "%}<|vision_start|><|image_pad|><|vision_end|>{% elif content['type'] == 'text' %}{{ "
    "content['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if "
    "add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
LLAVA_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] != 'system' %}{{ message['role'].upper() "
    "}}: {% endif %}{% if message['content'] is string %}{{ message['content'] }}{% else "
    "%}{% for content in message['content'] %}{% if content['type'] == 'image' %}<image>\n{% "
    "elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif "
    "%}\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def _tokenizer(
    special: list[str], bos: str | None, eos: str, pad: str, unk: str | None, template: str
):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=unk))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        pad_token=pad,
        unk_token=unk,
        extra_special_tokens={},
        chat_template=template,
    )
    fast.add_special_tokens(
        {"additional_special_tokens": [t for t in special if t not in (bos, eos, pad, unk)]}
    )
    return fast


def build_qwen2_5_vl(path: Path, seed: int = 0) -> Path:
    import torch
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
    )
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    tok = _tokenizer(QWEN_SPECIAL, None, "<|im_end|>", "<|endoftext|>", None, QWEN_TEMPLATE)
    ids = {t: tok.convert_tokens_to_ids(t) for t in QWEN_SPECIAL}
    config = Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=len(tok),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=4096,
            initializer_range=INIT,
            rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]},
            tie_word_embeddings=True,
            bos_token_id=ids["<|endoftext|>"],
            eos_token_id=ids["<|im_end|>"],
            pad_token_id=ids["<|endoftext|>"],
        ),
        vision_config=dict(
            depth=1,
            hidden_size=16,
            intermediate_size=32,
            num_heads=2,
            out_hidden_size=32,
            patch_size=14,
            spatial_merge_size=2,
            temporal_patch_size=2,
            window_size=56,
            initializer_range=INIT,
            fullatt_block_indexes=[0],
        ),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(seed)
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    image_processor = Qwen2VLImageProcessor(
        min_pixels=28 * 28, max_pixels=56 * 56, patch_size=14, merge_size=2, temporal_patch_size=2
    )
    video_processor = Qwen2VLVideoProcessor(
        min_pixels=28 * 28, max_pixels=56 * 56, patch_size=14, merge_size=2, temporal_patch_size=2
    )
    processor = Qwen2_5_VLProcessor(
        image_processor=image_processor,
        tokenizer=tok,
        video_processor=video_processor,
        chat_template=QWEN_TEMPLATE,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path


def build_llava(path: Path, seed: int = 0) -> Path:
    import torch
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    tok = _tokenizer(LLAVA_SPECIAL, "<s>", "</s>", "<pad>", "<unk>", LLAVA_TEMPLATE)
    image_token = tok.convert_tokens_to_ids("<image>")
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            image_size=28,
            patch_size=14,
            projection_dim=16,
            initializer_range=INIT,
        ),
        text_config=LlamaConfig(
            vocab_size=len(tok),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=4096,
            initializer_range=INIT,
            bos_token_id=tok.bos_token_id,
            eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
        ),
        image_token_index=image_token,
        vision_feature_layer=-1,
        vision_feature_select_strategy="full",
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config).eval()
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tok,
        patch_size=14,
        vision_feature_select_strategy="full",
        chat_template=LLAVA_TEMPLATE,
        num_additional_image_tokens=1,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path


IDEFICS2_SPECIAL = [
    "<unk>",
    "<s>",
    "</s>",
    "<fake_token_around_image>",
    "<image>",
    "<end_of_utterance>",
]
IDEFICS2_TEMPLATE = (
    "{% for message in messages %}{{ message['role'].capitalize() }}"
    "{% if message['content'][0]['type'] == 'image' %}{{ ':' }}{% else %}{{ ': ' }}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{ line['text'] }}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}<end_of_utterance>\n"
    "{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)


def build_idefics2(path: Path, seed: int = 0) -> Path:
    import torch
    from transformers import (
        Idefics2Config,
        Idefics2ForConditionalGeneration,
        Idefics2ImageProcessor,
        Idefics2Processor,
    )

    tok = _tokenizer(IDEFICS2_SPECIAL, "<s>", "</s>", "<unk>", "<unk>", IDEFICS2_TEMPLATE)
    image_seq_len = 4
    config = Idefics2Config(
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        vision_config=dict(
            hidden_size=16,
            intermediate_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            image_size=28,
            patch_size=14,
            initializer_range=INIT,
        ),
        perceiver_config=dict(
            hidden_size=32,
            resampler_n_latents=image_seq_len,
            resampler_depth=1,
            resampler_n_heads=2,
            resampler_head_dim=8,
            num_key_value_heads=1,
            initializer_range=INIT,
        ),
        text_config=dict(
            model_type="mistral",
            vocab_size=len(tok),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=1,
            max_position_embeddings=4096,
            initializer_range=INIT,
            bos_token_id=tok.bos_token_id,
            eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
        ),
    )
    torch.manual_seed(seed)
    model = Idefics2ForConditionalGeneration(config).eval()
    image_processor = Idefics2ImageProcessor(
        do_image_splitting=False, size={"shortest_edge": 28, "longest_edge": 28}
    )
    processor = Idefics2Processor(
        image_processor=image_processor,
        tokenizer=tok,
        image_seq_len=image_seq_len,
        chat_template=IDEFICS2_TEMPLATE,
    )
    model.save_pretrained(path)
    processor.save_pretrained(path)
    return path
