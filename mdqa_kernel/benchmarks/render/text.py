"""Narrative filler for rendered filings: seeded sentences in Chinese or English, some carrying
numbers from other years (distractors a reader must not pick up)."""

from __future__ import annotations

import random

ZH_SENTENCES = (
    "报告期内，{co}坚持稳中求进工作总基调，持续深化业务结构调整，经营发展总体保持稳健。",
    "公司围绕年度经营目标，统筹推进风险防控、数字化转型和精细化管理，各项重点工作有序开展。",
    "面对复杂多变的外部环境，公司管理层审慎评估宏观经济形势，主动调整资产负债结构。",
    "公司持续完善全面风险管理体系，强化信用风险、市场风险、流动性风险和操作风险的识别与计量。",
    "董事会认真履行职责，按照相关法律法规和公司章程的规定，审议通过了定期报告、利润分配等议案。",
    "公司高度重视投资者关系管理，通过业绩说明会、投资者热线、互动平台等多种渠道与投资者保持沟通。",
    "公司不断加强内部控制建设，内部控制体系覆盖主要业务流程和管理环节，未发现重大缺陷。",
    "公司积极践行绿色发展理念，推进节能降耗，持续提升资源利用效率。",
    "公司严格执行信息披露管理制度，确保披露信息真实、准确、完整、及时、公平。",
    "报告期内，公司不存在控股股东及其关联方非经营性占用资金的情况，不存在违规对外担保情况。",
    "本公司董事会、监事会及董事、监事、高级管理人员保证本报告内容的真实性、准确性和完整性。",
    "公司将继续聚焦主业，优化资源配置，提升核心竞争力，为股东创造长期、稳定的回报。",
    "公司薪酬与考核委员会对高级管理人员的履职情况和年度绩效进行了考核。",
    "上述事项已经公司第{n}届董事会第{m}次会议审议通过，独立董事发表了同意的独立意见。",
    "公司所处行业竞争日趋激烈，监管政策持续完善，对公司的经营管理能力提出了更高要求。",
    "{py}年，公司相关指标为{x}，本报告期内相关业务规模继续扩大。",
    "与{py}年相比，公司营业网点数量增加{k}个，员工总数达到{e}人。",
    "公司对可能面临的风险进行了充分识别，具体内容详见本报告“管理层讨论与分析”中“可能面对的风险”部分。",
)

EN_SENTENCES = (
    "{co} continued to execute its strategy during the year, focusing on operational discipline and "
    "long-term value creation for stockholders.",
    "Our results of operations may fluctuate significantly from period to period due to factors outside "
    "our control, including macroeconomic conditions, inflation and changes in interest rates.",
    "We depend on key personnel, and the loss of one or more members of our senior management team "
    "could adversely affect our business.",
    "We are subject to a variety of laws and regulations, and compliance with them may increase our "
    "costs or limit our operations.",
    "Cybersecurity incidents could disrupt our operations, result in the loss of confidential information "
    "and harm our reputation.",
    "The following discussion should be read in conjunction with the consolidated financial statements "
    "and related notes included elsewhere in this Annual Report on Form 10-K.",
    "Management evaluated the effectiveness of our internal control over financial reporting using the "
    "criteria set forth in the Internal Control - Integrated Framework (2013).",
    "We believe that our existing cash and cash equivalents, together with cash provided by operations, "
    "will be sufficient to meet our needs for at least the next twelve months.",
    "In fiscal {py}, the comparable figure was ${x} million, reflecting different market conditions.",
    "As of December 31, {py}, we had approximately {e} full-time employees.",
    "Our stock price has been and may continue to be volatile, and stockholders could lose all or part "
    "of their investment.",
    "We have never declared or paid cash dividends on our common stock other than as described in this "
    "report, and any future determination will be made by our Board of Directors.",
    "Changes in tax laws or their interpretation could adversely affect our effective tax rate and results.",
    "Competition in our industry is intense, and our competitors may have greater resources than we do.",
    "We lease our principal offices and believe that our facilities are adequate for our current needs.",
    "Critical accounting estimates include revenue recognition, inventory valuation, goodwill impairment "
    "and income taxes.",
)


def sentences(language: str, rng: random.Random, n: int, company: str, year: int) -> list[str]:
    bank = ZH_SENTENCES if language == "zh" else EN_SENTENCES
    out = []
    for _ in range(n):
        s = rng.choice(bank)
        out.append(
            s.format(
                co=company,
                py=year - rng.choice([2, 3, 4]),
                x=f"{rng.uniform(5, 900):,.2f}",
                k=rng.randint(2, 40),
                e=f"{rng.randint(300, 60000):,}",
                n=rng.randint(5, 9),
                m=rng.randint(3, 30),
            )
        )
    return out


def paragraph(language: str, rng: random.Random, company: str, year: int, lo: int = 3, hi: int = 6) -> str:
    sep = "" if language == "zh" else " "
    return sep.join(sentences(language, rng, rng.randint(lo, hi), company, year))
