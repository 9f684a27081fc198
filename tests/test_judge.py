"""The deterministic MuDABench judge."""

from __future__ import annotations

from decimal import Decimal

from mdqa_kernel.benchmarks.judge import extract_numbers, extract_tickers, judge, numbers_match

Q_TOP = "针对中国A股市场，请你给出你知识库中2021年资本充足率最高的三家公司股票代码"
REF_TOP = "根据2021年数据分析，资本充足率最高的三家公司股票代码分别是：601398、002142、601166。"


def test_codes_as_ordered_set_for_rankings() -> None:
    assert judge("结果为：601398、002142、601166。", REF_TOP, question=Q_TOP)
    assert not judge("结果为：002142、601398、601166。", REF_TOP, question=Q_TOP)  # order matters
    assert judge("结果为：002142、601398、601166。", REF_TOP, question=Q_TOP, ordered=False)
    assert not judge("结果为：601398、002142。", REF_TOP, question=Q_TOP)  # missing one
    assert not judge("结果为：601398、002142、601166、600036。", REF_TOP, question=Q_TOP)  # an extra one


def test_a_distribution_over_dates_lists_its_companies_in_any_order() -> None:
    """q_21303a69 (complex, held-out run of v40): every date and company right, listed by count where the
    reference lists them by date; the question ranks dates, not companies."""
    q = "针对中国A股市场，请根据你知识库中2022年的数据，分析股权登记日的时间分布情况，哪个日期进行股权登记的公司最多？"
    ref = (
        "根据2022年股权登记日时间分布分析：2023-05-09有1家公司，证券代码为：601528；2023-07-12有2家公司，证券代码为："
        "600036, 600926；2023-07-14有2家公司，证券代码为：600919, 601398。其中2023-07-12和2023-07-14是股权登记最集中的日期"
    )
    by_count = "结果为：2023-07-14（2家：600919、601398）；2023-07-12（2家：600036、600926）；2023-05-09（1家：601528）。"
    assert judge(by_count, ref, question=q)
    assert not judge(by_count.replace("600926", "600927"), ref, question=q)  # the set still counts
    assert not judge(by_count.replace("2023-05-09", "2023-05-10"), ref, question=q)  # and every date


def test_numbers_integer_digits_and_first_decimal() -> None:
    ref = "营业总成本极差的变化量为-610825128.70元。"
    assert judge("变化量为-610825128.71元", ref)
    assert not judge("变化量为-610825128.61元", ref)
    assert not judge("变化量为-61082512.87元", ref)


def test_a_currency_sign_after_the_minus_keeps_the_number_negative() -> None:
    """q_bd8c7b95's reference writes "[OOMA]: -$3,655,000.00"; the judge had read +3,655,000 and failed
    the answer's -3655000.00."""
    assert extract_numbers("[OOMA]: -$3,655,000.00")[0].value == Decimal("-3655000.00")
    assert extract_numbers("US$5")[0].value == Decimal("5")
    ref = "Top 3 companies by net profit in 2023:\n[LZB]: $151,941,000.00\n[OOMA]: -$3,655,000.00"
    assert judge("The result: LZB (151941000.00), OOMA (-3655000.00).", ref)
    assert not judge("The result: LZB (151941000.00), OOMA (3655000.00).", ref)


def test_units_are_normalised() -> None:
    pct = extract_numbers("比例为15.78%")[0]
    assert numbers_match(pct, extract_numbers("0.1578")[0])
    yi = extract_numbers("1.5亿元")[0]
    assert numbers_match(yi, extract_numbers("150000000元")[0])
    assert not numbers_match(yi, extract_numbers("1.4亿")[0])
    assert yi.canonical == Decimal("150000000.0")


def test_years_dates_ordinals_and_question_numbers_are_not_required() -> None:
    ref = "根据2022年数据，达到第3名分数线及以上的公司共有11家：601288（1.00）"
    assert judge("结果（共11家）为：601288（1.00）", ref, question="2022年…第3名分数线…")
    assert not judge("结果为：601288（1.00）", ref, question="2022年…第3名分数线…")


def test_us_tickers_and_extra_text() -> None:
    ref = "Based on 2021 data, the top 3 companies by total assets are: [PLAY], [DY], [CMCO]"
    assert extract_tickers(ref) == ["PLAY", "DY", "CMCO"]
    assert judge("The result: PLAY, DY, CMCO. (US filers, ESG aside)", ref, question="top three ... highest")
    assert not judge("The result: PLAY, DY, BBY.", ref)


def test_a_decimal_is_not_read_as_a_year() -> None:
    """q_56ecd6f2: "0.1942" was cut to "0" (its "1942" taken for a year), so a right answer failed."""
    ref = "Top 3 companies by intangible assets ratio in 2023:\n[VNCE]: 0.2311\n[GEN]: 0.1942\n[PINC]: 0.1275"
    assert [n.text for n in extract_numbers(ref)] == ["0.2311", "0.1942", "0.1275"]
    q = "Report the exact intangible-assets-to-total-assets ratios and stock symbols for the top three companies in 2023."
    assert judge("The result: VNCE (23.11%), GEN (19.42%), PINC (12.75%).", ref, question=q)
    assert not judge(
        "The result: VNCE (23.11%), GEN, PINC.", ref, question=q
    )  # ratios of GEN and PINC missing


def test_names_and_dates() -> None:
    ref = "审验客户数量最多的机构是普华永道中天会计师事务所(特殊普通合伙)"
    assert judge("结果为：普华永道中天会计师事务所（特殊普通合伙）（3家）。", ref)
    assert not judge("结果为：毕马威华振会计师事务所(特殊普通合伙)。", ref)
    assert judge("601528（2022-05-09）", "最早的公司为：601528，对应日期为：2022-05-09")
    assert not judge("601528（2022-05-10）", "最早的公司为：601528，对应日期为：2022-05-09")
    assert judge(
        "最常见的是现场投票、网络投票（12家）",
        "最常见的召开方式组合是“现场投票、网络投票”，共有12家公司采用。",
    )


def test_a_firm_changed_from_is_the_firm_without_the_preposition() -> None:
    """q_c5eb3932: the reference's "从苏亚金诚会计师事务所(特殊普通合伙)更换为…" names the firm, not "从苏亚金诚…"."""
    ref = "股票代码601860从苏亚金诚会计师事务所(特殊普通合伙)更换为立信会计师事务所(特殊普通合伙)"
    both = "601860（2022年=苏亚金诚会计师事务所(特殊普通合伙)；2023年=立信会计师事务所(特殊普通合伙)）"
    assert judge(both, ref).correct
    assert not judge("601860（2023年=立信会计师事务所(特殊普通合伙)）", ref).correct


def test_count_answers() -> None:
    assert judge("办公地址在深圳的公司共有0家。", "根据2021年数据分析，办公地址在深圳的公司共有0家。")
    assert not judge("共有1家。", "根据2021年数据分析，办公地址在深圳的公司共有0家。")
